"""What a fuzz run is given and what it finds: its options, a finding, the outcome."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxconf.reference import AREAS

AREA = AREAS[0]  # the default area: the first registered
DEFAULT_EXAMPLES = 500
UNLIMITED = 10**9  # sessions, when only --max-time bounds the run
DEFAULT_TIMEOUT = 10.0
DEFAULT_REPORTS = Path("reports")

Case = dict[str, Any]  # {"limits"?: {...}, "steps": [...]}, as the protocol carries it
SessionRunner = Callable[[Case], list[str]]


class SessionFailed(Exception):
    """The implementation failed a session as a whole: no outputs to compare."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.stderr = stderr


@dataclass(frozen=True)
class FuzzOptions:
    examples: int = DEFAULT_EXAMPLES
    seed: int = 0
    max_time: float | None = None  # seconds; None: no limit
    accept_equivalent_diffs: bool = False
    area: str = AREA
    ops: frozenset[str] | None = None  # the ops sessions are made of; None: every op


@dataclass(frozen=True)
class Finding:
    """A session on which the implementation departs from the reference."""

    case: Case
    expected: tuple[str, ...]
    actual: tuple[str, ...] | None  # None: the implementation failed the session
    differing: tuple[int, ...]  # the steps whose texts differ
    failure: str = ""
    stderr: str = ""
    area: str = AREA

    @property
    def step(self) -> int:
        """The step the finding is about: the first that differs, or the last one run."""
        return self.differing[0] if self.differing else len(self.case["steps"]) - 1


@dataclass(frozen=True)
class FuzzOutcome:
    seed: int
    examples: int  # sessions generated (up to and including the first finding)
    shrink_runs: int  # sessions run while shrinking
    elapsed: float
    timed_out: bool
    finding: Finding | None
