"""The seam through which a caller adds its own view of each exchange to the proxy's console:
a `Watcher` is told where the record is, is shown each line as it is written (in the record's
writer thread, never on the event loop) and answers words for that exchange's console line,
and at the end prints what it has to say. The proxy names no one that watches: the command
that starts it wires one in (`ctxconf proxy` wires the audit's live view)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, TextIO


class Watcher(Protocol):
    def started(self, record: Path) -> None:
        """The record's file, once its first line is written."""

    def exchange(self, line: Mapping[str, Any]) -> str:
        """Words for the console line of the exchange `line` records; empty for none."""

    def ended(self, out: TextIO) -> None:
        """The run has ended and its summary is printed: say what is left to say."""


__all__ = ["Watcher"]
