"""What a run did, as the checks read it: each process a turn ran, each session, the whole run."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .profile import Profile
from .scenario import Scenario


@dataclass(frozen=True)
class KillRecord:
    """What the kill of a turn found: whether the interrupted command was still running (so the
    kill landed inside the call) and the processes it ended."""

    command: str
    running: bool
    ended: tuple[str, ...]
    left_group: tuple[str, ...] = ()  # those of them that had left the process group


@dataclass
class ProcessRun:
    session: int
    turns: list[int]
    argv: list[str]
    exit_code: int | None
    seconds: float
    timed_out: bool
    stdout: str
    stderr: str
    first_request: int  # the log numbers of the requests it sent: first_request < n <= last
    last_request: int
    killed: bool = False  # killed by the probe while it ran a call, as a crash would end it
    started_at: float = 0.0  # time.time() when it was started
    clock: datetime | None = None  # the harness's moved clock when it started
    kill: KillRecord | None = None
    # Processes it left running outside its process group, found and ended by the probe (and
    # those that could not be ended), each as "name (pid N)".
    left_running: tuple[str, ...] = ()
    not_ended: tuple[str, ...] = ()
    setup: bool = False  # the profile's setup command, run before the first turn
    interrupted: bool = False  # ended by the probe when a signal stopped the run

    def clock_at(self, moment: float) -> datetime | None:
        """The harness's clock at `moment` (a time.time()), when the probe moved it."""
        if self.clock is None:
            return None
        return self.clock + timedelta(seconds=moment - self.started_at)

    @property
    def clock_at_end(self) -> datetime | None:
        return None if self.clock is None else self.clock + timedelta(seconds=self.seconds)


@dataclass
class SessionRun:
    index: int
    clock: datetime | None
    entries: list[dict[str, Any]]
    processes: list[ProcessRun]
    usage_file: str | None = None  # the text of the file the profile's usage_output names
    # Seconds before midnight its clock started at, one per try (a slow start widens it).
    margins: list[float] = field(default_factory=list)
    # What the probe's MCP server logged (mcp_server.py), one event a line, when one ran.
    mcp_log: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""  # the mock's, for a harness that may not have used it


@dataclass
class ProbeRun:
    profile: Profile
    scenario: Scenario
    version: str | None
    started: datetime
    finished: datetime
    clock_problem: str | None  # why the clock could not be moved, when the scenario moves it
    sessions: list[SessionRun] = field(default_factory=list)
    kept: Path | None = None  # the run's folders, when kept
    not_installed: str | None = None  # why the harness could not be started at all
    not_played: str | None = None  # why the scenario was not played with this profile
    provider: str | None = None  # whose cache rules the mock follows; None: the API shape's
    interrupted: str | None = None  # the signal that stopped the run (SIGINT), if one did


__all__ = ["KillRecord", "ProbeRun", "ProcessRun", "SessionRun"]
