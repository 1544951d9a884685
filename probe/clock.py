"""The harness's clock in a scenario that moves it: the day each request fell on in that clock,
and the margin before midnight a session starts with, widened after a slow start.

A process's clock starts where the probe set it when the process starts, and runs on; a request
at time t fell at `clock + (t - started)`. A turn meant for one day whose request fell on the
next (a harness slow to reach its first request) measured nothing of what the scenario meant, so
the session is played again with its clock started earlier, by a margin that covers the time the
turn took, up to MARGIN_TRIES tries; only then is the miss the checks' error.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from .records import ProcessRun, SessionRun
from .scenario import Scenario

MARGIN_TRIES = 3
MARGIN_GROWTH = 1.5  # the next margin: this many times the time the late turn took, and more
MARGIN_SLACK_S = 10.0


@dataclass(frozen=True)
class ClockMiss:
    """A request that fell outside its turn's day in the harness's clock."""

    turn: int
    request: int
    after_start: float  # seconds from its process's start to the request
    started: datetime  # the clock its process started at
    late: bool  # after the turn's day had ended (else: before it began)


def next_midnight(moment: datetime) -> datetime:
    return datetime.combine(moment.date() + timedelta(days=1), datetime.min.time())


def margin_before_midnight(moment: datetime) -> float:
    return (next_midnight(moment) - moment).total_seconds()


def meant_day(scenario: Scenario, session_clock: datetime, turn: int) -> date:
    return (scenario.turns[turn].clock or session_clock).date()


def _process_of(n: int, processes: list[ProcessRun]) -> ProcessRun | None:
    return next((p for p in processes if p.first_request < n <= p.last_request), None)


def clock_misses(scenario: Scenario, session: SessionRun) -> list[ClockMiss]:
    """The first request of each turn that fell outside the turn's day, in the order sent."""
    if session.clock is None:
        return []
    misses: dict[int, ClockMiss] = {}
    for entry in session.entries:
        step = entry.get("step")
        if entry.get("kind") != "answer" or not isinstance(step, int):
            continue
        turn = scenario.turn_of_step(step)
        process = _process_of(int(entry["n"]), session.processes)
        if turn is None or turn in misses or process is None:
            continue
        clock = process.clock_at(float(entry["time"]))
        if clock is None or process.clock is None:
            continue
        day = meant_day(scenario, session.clock, turn)
        if clock.date() != day:
            after = round(float(entry["time"]) - process.started_at, 1)
            misses[turn] = ClockMiss(
                turn, int(entry["n"]), after, process.clock, clock.date() > day
            )
    return sorted(misses.values(), key=lambda m: m.request)


def turn_seconds(scenario: Scenario, session: SessionRun, turn: int) -> float:
    """How long after its process started the turn's last request came."""
    seconds = 0.0
    for entry in session.entries:
        step = entry.get("step")
        if entry.get("kind") != "answer" or not isinstance(step, int):
            continue
        process = _process_of(int(entry["n"]), session.processes)
        if process is not None and scenario.turn_of_step(step) == turn:
            seconds = max(seconds, float(entry["time"]) - process.started_at)
    return seconds


def widened_margin(scenario: Scenario, session: SessionRun) -> float | None:
    """The margin for another try when a turn that starts from the session's clock ran past
    midnight; None when no try is needed, or another would not help."""
    late = [
        m
        for m in clock_misses(scenario, session)
        if m.late and scenario.turns[m.turn].clock is None
    ]
    if not late or session.clock is None or len(session.margins) >= MARGIN_TRIES:
        return None
    took = max(turn_seconds(scenario, session, m.turn) for m in late)
    margin = session.margins[-1] if session.margins else margin_before_midnight(session.clock)
    return round(max(2 * margin, took * MARGIN_GROWTH + MARGIN_SLACK_S), 1)


__all__ = [
    "MARGIN_TRIES",
    "ClockMiss",
    "clock_misses",
    "margin_before_midnight",
    "meant_day",
    "next_midnight",
    "turn_seconds",
    "widened_margin",
]
