"""Atomic writes: a reader, or an interrupted run, sees the old file whole or the new one whole.

The one writer of files in place for the whole project (regen, add-case, results, reports). Its
temporary file is a dot-file ending in `.tmp` beside the target, so no pattern that finds data
(`conformance/*.json` without dot-files) ever takes it for data; it is removed on every way out,
and one left by a killed process is removed by the next write of the same file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path

TEMP_SUFFIX = ".tmp"
# A temporary file this old belongs to no write in progress: its writer was killed.
STALE_SECONDS = 60.0


def temp_prefix(path: Path) -> str:
    return f".{path.name}."


def _remove_stale(path: Path) -> None:
    prefix, now = temp_prefix(path), time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent):
            if not (entry.name.startswith(prefix) and entry.name.endswith(TEMP_SUFFIX)):
                continue
            with contextlib.suppress(OSError):
                if now - entry.stat(follow_symlinks=False).st_mtime > STALE_SECONDS:
                    os.unlink(entry.path)


def open_temp(path: Path) -> tuple[int, Path]:
    """A new temporary file beside `path`, named so nothing takes it for data: (fd, its path)."""
    fd, temp = tempfile.mkstemp(prefix=temp_prefix(path), suffix=TEMP_SUFFIX, dir=path.parent)
    return fd, Path(temp)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def move_into_place(temp: Path, path: Path) -> None:
    """Replace `path` with the finished `temp`: the old file's mode kept, or for a new file the
    mode any new file gets (mkstemp makes it private), then stale temporary files removed."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~_umask()
    os.chmod(temp, mode)
    os.replace(temp, path)
    _remove_stale(path)


def write_text_atomic(path: Path, text: str) -> None:
    path = Path(path)
    fd, temp = open_temp(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        move_into_place(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
