"""What a check is and what it judges: the recorded requests with tools, and the result it gives."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..harness import ProbeRun, ProcessRun, SessionRun
from ..wire import Request, parse_request

Verdict = Literal["pass", "fail", "info", "not-testable", "error"]
Kind = Literal["exact", "behaviour"]


@dataclass(frozen=True)
class CheckResult:
    id: str
    anchor: str
    kind: Kind
    verdict: Verdict
    summary: str  # one line
    figures: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Sent:
    """One recorded request with tools, and the process that sent it."""

    n: int
    request: Request
    process: int | None
    step: int | None
    cached: int


@dataclass(frozen=True)
class CheckDef:
    id: str
    anchor: str
    kind: Kind
    title: str
    judge: Callable[[CheckDef, ProbeRun, list[list[Sent]]], CheckResult]


def _process_of(n: int, processes: list[ProcessRun]) -> int | None:
    for number, process in enumerate(processes):
        if process.first_request < n <= process.last_request:
            return number
    return None


def sent_requests(session: SessionRun) -> list[Sent]:
    """The requests of the agent's loop: those with tools, or every answered request of a
    harness that offers no tools at all (aider)."""
    answered = []
    for entry in session.entries:
        if entry.get("kind") != "answer" or not isinstance(entry.get("body"), dict):
            continue
        stream = ":streamGenerateContent" in str(entry.get("path", ""))
        answered.append((entry, parse_request(entry["shape"], entry["body"], stream)))
    toolless = not any(request.tools for _, request in answered)
    out = []
    for entry, request in answered:
        if request.tools or toolless:
            cached = int(entry.get("usage", {}).get("cached", 0))
            out.append(
                Sent(
                    entry["n"],
                    request,
                    _process_of(entry["n"], session.processes),
                    entry.get("step"),
                    cached,
                )
            )
    return out


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _result(check: CheckDef, verdict: Verdict, summary: str, **figures: Any) -> CheckResult:
    return CheckResult(check.id, check.anchor, check.kind, verdict, summary, figures)
