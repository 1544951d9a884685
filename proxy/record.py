"""The record: one JSON-lines file per run in the record folder, appended to and flushed as each
exchange ends, so a crash loses at most the exchanges in flight. Its first line says what the
run was (`kind: run`), each next one is an exchange (`kind: exchange`, `exchange.py`), and a run
that ended cleanly writes a last line with its counts (`kind: end`). A reader takes a last line
that does not parse as torn (`read_record`), never the whole file as broken.

Lines are made and written by one thread of their own, in the order the exchanges ended: the
traffic does not wait on the disk, and no two lines interleave."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FORMAT = "ctxconf-proxy-record"
FORMAT_VERSION = 1


def _stamp(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def new_file(folder: Path) -> Path:
    """A file of its own for this run in `folder` (made if missing), created empty."""
    folder.mkdir(parents=True, exist_ok=True)
    base = time.strftime("proxy-%Y%m%dT%H%M%SZ", time.gmtime())
    for attempt in range(1000):
        path = folder / (f"{base}-{os.getpid()}" + (f"-{attempt}" if attempt else "") + ".jsonl")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        except FileExistsError:
            continue
        os.close(fd)
        return path
    raise FileExistsError(f"{folder}: no free name for this run's record")


class Record:
    """The open record of one run; `submit` hands an exchange's line maker to the writer."""

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path = path
        self._file = path.open("a", encoding="utf-8")
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ctxconf-record")
        self._write({"kind": "run", "format": FORMAT, "format_version": FORMAT_VERSION, **header})

    def _write(self, data: dict[str, Any]) -> None:
        self._file.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()

    def submit(
        self, make: Callable[[], dict[str, Any]], then: Callable[[dict[str, Any]], None]
    ) -> Future[None]:
        """Make a line and write it, in the writer's thread; `then` sees it written."""

        def job() -> None:
            data = make()
            self._write(data)
            then(data)

        return self._writer.submit(job)

    def close(self, footer: dict[str, Any] | None) -> None:
        """Write what is queued, then the footer (None: the run did not end cleanly)."""
        self._writer.shutdown(wait=True)
        if footer is not None:
            self._write({"kind": "end", "ended": _stamp(time.time()), **footer})
        self._file.close()


@dataclass(frozen=True)
class Read:
    """The lines of a record, and whether its last one was torn (cut mid-write)."""

    lines: list[dict[str, Any]]
    torn: bool


def read_record(path: Path) -> Read:
    """Every whole line of a record. A last line without its newline, or one that does not
    parse, is torn and left out; a line before it that does not parse is not the proxy's
    writing: ValueError, with its number."""
    rows = path.read_text(encoding="utf-8", errors="replace").split("\n")
    torn = rows[-1] != ""  # the text after the last newline: a line cut mid-write
    rows = rows[:-1]
    lines: list[dict[str, Any]] = []
    for number, row in enumerate(rows, 1):
        try:
            data = json.loads(row)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            if number == len(rows) and not torn:
                return Read(lines, True)
            raise ValueError(f"{path}:{number}: not a line of a proxy record")
        lines.append(data)
    return Read(lines, torn)


__all__ = ["FORMAT", "FORMAT_VERSION", "Read", "Record", "new_file", "read_record"]
