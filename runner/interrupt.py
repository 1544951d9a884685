"""Ctrl-C, SIGTERM and SIGHUP as one interruption of a run.

Inside `interruptible()`, the first of these signals raises `Interrupted` (a KeyboardInterrupt,
so code that already stops cleanly on Ctrl-C stops cleanly on the others too); any later one is
ignored, so that the run can finish its results file, close every implementation and exit 130
without being cut short again. Outside, the handlers that were there come back.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from ctxconf.interruption import SIGNALS, Interrupted


@contextmanager
def interruptible() -> Iterator[None]:
    """Turn the first SIGINT, SIGTERM or SIGHUP into `Interrupted`; ignore the rest."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers; a caller there gets plain Ctrl-C
        return
    raised = False

    def handle(number: int, frame: FrameType | None) -> None:
        nonlocal raised
        if raised:
            return
        raised = True
        raise Interrupted(signal.Signals(number).name)

    previous = {sig: signal.signal(sig, handle) for sig in SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


__all__ = ["SIGNALS", "Interrupted", "interruptible"]
