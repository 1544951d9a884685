"""A watcher run in a process of its own. A view that audits each exchange (the audit's live
view plays the session's bodies through the cache simulator) is work for the processor: in the
proxy's process it would hold the interpreter from the event loop that forwards the traffic, and
every stream's first byte would wait on it. Here the proxy's record thread hands each line over a
pipe and waits for the words, the wait letting the interpreter go.

A view that dies or fails costs its words, never the proxy: the console says so once and the
exchanges go on without it."""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import os
import signal
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, TextIO

from .watcher import Watcher


def _serve(make: Callable[[], Watcher], connection: Connection) -> None:
    """The child: the watcher made here, each message answered in turn until the last. It yields
    the processor to the forwarding: a view may fall behind, the traffic may not."""
    with contextlib.suppress(OSError):
        os.nice(10)
    # Ctrl-C reaches the whole process group: the proxy ends the view itself, after the summary
    # (and a view whose proxy is gone ends on the pipe's end).
    for stop in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(stop, signal.SIG_IGN)
    watcher = make()
    while True:
        try:
            kind, value = connection.recv()
        except EOFError:
            return
        try:
            if kind == "started":
                watcher.started(Path(value))
                connection.send("")
            elif kind == "exchange":
                connection.send(watcher.exchange(value))
            else:  # "ended": what it has to say, then the child ends
                out = io.StringIO()
                watcher.ended(out)
                connection.send(out.getvalue())
                return
        except Exception as e:  # its words say it failed; the proxy's line stays whole
            connection.send(f"[the live view failed: {type(e).__name__}: {e}]")


class WatcherApart:
    """A `Watcher` whose work runs in a child process made by `make` (a picklable callable, such
    as a class and its arguments in `functools.partial`)."""

    def __init__(self, make: Callable[[], Watcher]) -> None:
        # spawn: the proxy has threads running, and a forked child would inherit their locks.
        context = multiprocessing.get_context("spawn")
        self._connection, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(make, child), daemon=True)
        self._process.start()
        child.close()
        self._gone: str | None = None

    def _ask(self, kind: str, value: Any = None) -> str:
        if self._gone is not None:
            return ""
        try:
            self._connection.send((kind, value))
            words = self._connection.recv()
        except (EOFError, OSError) as e:
            self._gone = f"[the live view stopped: {type(e).__name__}]"
            return self._gone
        return str(words)

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def started(self, record: Path) -> None:
        self._ask("started", str(record))

    def exchange(self, line: Mapping[str, Any]) -> str:
        return self._ask("exchange", dict(line))

    def ended(self, out: TextIO) -> None:
        said = self._ask("ended")
        if said:
            out.write(said)
        self.close()

    def close(self) -> None:
        self._connection.close()
        self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()


__all__ = ["WatcherApart"]
