"""Ctrl-C, SIGTERM and SIGHUP during a probe, as one interruption.

While the harness plays, the first of these signals raises `Interrupted` (a KeyboardInterrupt)
where the probe waits, which ends the harness's processes and keeps what the run recorded; any
later one is ignored, and once `playing` is off the first is only noted, so that the results
file, the page and the console's summary of the turns played are written whole before the
command exits 130.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from ctxconf.interruption import SIGNALS, Interrupted


def signal_name(stop: KeyboardInterrupt) -> str:
    """The signal behind `stop`: a plain KeyboardInterrupt is Python's own for SIGINT."""
    return stop.signal_name if isinstance(stop, Interrupted) else "SIGINT"


class Stop:
    """What the handlers saw: the first signal's name, and whether it still raises."""

    def __init__(self) -> None:
        self.signal_name: str | None = None
        self.playing = True

    def handle(self, number: int, frame: FrameType | None) -> None:
        if self.signal_name is not None:
            return  # the first is being handled: let the results be written
        self.signal_name = signal.Signals(number).name
        if self.playing:
            raise Interrupted(self.signal_name)


@contextmanager
def interruptible() -> Iterator[Stop]:
    """Within it, the first SIGINT, SIGTERM or SIGHUP stops the run (see the module)."""
    stop = Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop  # only the main thread may set handlers
        return
    previous = {sig: signal.signal(sig, stop.handle) for sig in SIGNALS}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


__all__ = ["Interrupted", "Stop", "interruptible", "signal_name"]
