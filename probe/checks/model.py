"""What a check is and what it judges: the recorded requests with tools, and the result it gives."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ctxconf.shapes import parse_request
from ctxconf.shapes.wire import Request, ends_with_own_prompt, ends_with_result

from ..harness import ProbeRun, ProcessRun, SessionRun

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


# What a check needs the run to have done as the scenario meant (see `measured`): every turn's
# requests, the clock where the scenario put it, each resume continuing the session, the kill
# landing inside the call, and no request the mock had to refuse; and each change the scenario
# makes mid-session where the harness could see it: the instruction file's edit, the MCP server's
# late tools, the command a turn is entered through.
Need = Literal["turns", "clock", "resume", "kill", "bodies", "edit", "mcp", "command"]
EVERY_RUN: frozenset[Need] = frozenset({"turns", "bodies"})


@dataclass(frozen=True)
class CheckDef:
    id: str
    anchor: str
    kind: Kind
    title: str
    judge: Callable[[CheckDef, ProbeRun, list[list[Sent]]], CheckResult]
    tells_aside: bool = False  # a pass says how many side requests were left out
    needs: frozenset[Need] = EVERY_RUN
    # Why the scenario or the profile alone leaves nothing to judge (then `not-testable`, whatever
    # the run did), or None.
    applies: Callable[[ProbeRun], str | None] | None = None
    # A fail on what was sent stands though the run fell short of its scenario: what it saw (a
    # request the provider refused) no later request can undo. Otherwise a short run is `error`.
    fails_when_short: bool = False
    # The verdicts of its own that stand when the run fell short (by default a fail alone): a
    # check about why a turn fell short has its say there too.
    stands_when_short: frozenset[str] = frozenset({"fail"})
    # It judges the requests the provider refused too: a run whose every request was refused
    # is its verdict, not a run with nothing to judge.
    judges_refusals: bool = False


def _process_of(n: int, processes: list[ProcessRun]) -> int | None:
    for number, process in enumerate(processes):
        if process.first_request < n <= process.last_request:
            return number
    return None


def _answered(session: SessionRun) -> list[tuple[dict[str, Any], Request]]:
    """The requests the mock answered, with tools, or every one of a harness that offers no
    tools at all (aider)."""
    answered = []
    for entry in session.entries:
        if entry.get("kind") != "answer" or not isinstance(entry.get("body"), dict):
            continue
        stream = ":streamGenerateContent" in str(entry.get("path", ""))
        answered.append((entry, parse_request(entry["shape"], entry["body"], stream)))
    toolless = not any(request.tools for _, request in answered)
    return [(entry, request) for entry, request in answered if request.tools or toolless]


def _is_side(
    entry: Mapping[str, Any], request: Request, loop: Request | None, said: Sequence[str]
) -> bool:
    """Whether `request` is a side conversation of the harness's own (a title, a summary, a
    memory subagent): it branches from the loop's history with a prompt of its own, whatever
    its prompt and tools, or ends with such a prompt under another system prompt or tool list
    than the loop's. A request that ends with the scenario's message is the loop's, whatever its
    prompt: a remade prompt is a fault. A compaction's request is the compaction checks'."""
    if entry.get("compaction") or loop is None or ends_with_result(request):
        return False
    if any(text in request.last_user_text for text in said):
        return False
    if ends_with_own_prompt(request, said):
        return True
    return request.system != loop.system or request.canonical_tools() != loop.canonical_tools()


def split_requests(session: SessionRun, said: Sequence[str]) -> tuple[list[Sent], int]:
    """The requests of the agent's loop, and how many side conversations of the harness's own
    were left out (`said`: the scenario's user messages, which tell the loop's requests apart)."""
    answered = _answered(session)
    loop = next((r for _, r in answered if any(text in r.last_user_text for text in said)), None)
    out, aside = [], 0
    for entry, request in answered:
        if _is_side(entry, request, loop, said):
            aside += 1
            continue
        cached = int(entry.get("usage", {}).get("cached", 0))
        process = _process_of(entry["n"], session.processes)
        out.append(Sent(entry["n"], request, process, entry.get("step"), cached))
    return out, aside


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def aside_note(count: int) -> str:
    """What a check left out: the harness's own side conversations, each under a prompt and
    tools of their own (a memory subagent), which do not touch the loop's cache."""
    return f"; {_count(count, 'side request')} of the harness's own set aside" if count else ""


def _result(check: CheckDef, verdict: Verdict, summary: str, **figures: Any) -> CheckResult:
    return CheckResult(check.id, check.anchor, check.kind, verdict, summary, figures)
