"""Watchers for the tests of a watcher run apart: made in the child process, so importable."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO


class Counting:
    """Says which exchange of the run this is, and the process it ran in."""

    def __init__(self) -> None:
        self.seen = 0
        self.record: Path | None = None

    def started(self, record: Path) -> None:
        self.record = record

    def exchange(self, line: Mapping[str, Any]) -> str:
        self.seen += 1
        if line.get("fail"):
            raise ValueError("a view's own fault")
        if line.get("die"):
            os._exit(3)
        return f"#{self.seen} of {self.record.name if self.record else '?'} in {os.getpid()}"

    def ended(self, out: TextIO) -> None:
        out.write(f"{self.seen} seen\n")
