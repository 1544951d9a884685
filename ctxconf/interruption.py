"""What the runner's and the probe's interruptions share: the signals that stop a command, and
the KeyboardInterrupt that names which of them came."""

from __future__ import annotations

import signal

SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Interrupted(KeyboardInterrupt):
    """The command was asked to stop by `signal_name`."""

    def __init__(self, signal_name: str) -> None:
        super().__init__(signal_name)
        self.signal_name = signal_name


__all__ = ["SIGNALS", "Interrupted"]
