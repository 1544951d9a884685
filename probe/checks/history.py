"""The history checks: what a harness resumed after a crash between a call and its result sends.

The scenario kills the harness's process group while it runs a long call (`kill_after_call_s`)
and plays the next turn with the profile's resume command. A resumed session must send no call
without its result, nor a result anywhere but right after its call, which the APIs refuse
(`hist.persist.no-half-turn`), and its earlier complete turns as the live session sent them
(`hist.persist.cold-equals-live`); what became of the interrupted call is reported with figures
(`hist.persist.truncate`). A request the API refused is judged as sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ctxconf.shapes import parse_request, shape_named
from ctxconf.shapes.wire import ToolCall, result_follows, tool_calls

from ..harness import ProbeRun, ProcessRun, SessionRun
from .model import CheckDef, CheckResult, Sent, _count, _process_of, _result

QUOTE_CHARS = 200


@dataclass(frozen=True)
class Crash:
    """The crash a run played: the killed turn, the call it interrupted, the last request of
    the live session before it, and every request sent after the resume."""

    turn: int
    call_id: str
    tool: str
    arguments: Any
    live: Sent
    resumed: list[Sent]


def _trouble(process: ProcessRun) -> str:
    if process.exit_code is None and not process.timed_out:
        return process.stderr.strip()[:200] or "it did not start"
    what = "timed out" if process.timed_out else f"exited {process.exit_code}"
    lines = process.stderr.strip().splitlines()
    return what + (f": {lines[-1][:200]}" if lines else "")


def _process_of_turn(processes: list[ProcessRun], turn: int) -> int | None:
    return next((n for n, p in enumerate(processes) if turn in p.turns), None)


def _refused_after(session: SessionRun, killed: int) -> list[Sent]:
    """The requests with tools the API refused after the resume: sent, though not answered."""
    out = []
    for entry in session.entries:
        if entry.get("kind") != "api-error" or not isinstance(entry.get("body"), dict):
            continue
        process = _process_of(int(entry["n"]), session.processes)
        request = parse_request(entry["shape"], entry["body"])
        if process is not None and process > killed and request.tools:
            out.append(Sent(int(entry["n"]), request, process, None, 0))
    return out


def crash(run: ProbeRun, sessions: list[list[Sent]]) -> Crash | str:
    """The crash the run played, or why there is none to judge."""
    turn = run.scenario.killed_turn()
    assert turn is not None, "the check applies only to a scenario with a kill"
    session, sent = run.sessions[0], sessions[0]
    killed = _process_of_turn(session.processes, turn)
    step = run.scenario.first_step_of_turn(turn)
    calls = [
        e
        for e in session.entries
        if e.get("kind") == "answer" and e.get("step") == step and e["reply"].get("tool")
    ]
    if killed is None or not calls:
        return f"the mock never sent turn {turn + 1}'s long call (no tool to run it, or no request)"
    if not session.processes[killed].killed:
        process = session.processes[killed]
        return f"the harness ended turn {turn + 1} before the crash came ({_trouble(process)})"
    live = [s for s in sent if s.process is not None and s.process < killed]
    if not live:
        return "the turns before the crash sent no request with tools"
    resumed = [s for s in sent if s.process is not None and s.process > killed]
    resumed = sorted([*resumed, *_refused_after(session, killed)], key=lambda s: s.n)
    after = _process_of_turn(session.processes, turn + 1)
    if not resumed:
        why = _trouble(session.processes[after]) if after is not None else "no process"
        return f"the resumed process sent no request with tools ({why})"
    earlier = [t.user for t in run.scenario.turns[:turn]]
    texts = resumed[0].request.user_texts
    if not any(user in text for user in earlier for text in texts):
        return "the resume started a new session: its first request holds no earlier user message"
    reply = calls[-1]["reply"]
    return Crash(
        turn, f"call_probe_{step}", reply["tool"], reply.get("arguments"), live[-1], resumed
    )


def _decoded(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def interrupted_call(found: Crash, sent: Sent) -> ToolCall | None:
    """The interrupted call in a resumed request: by the mock's id, or by name and arguments
    for a harness that gives calls ids of its own."""
    calls = tool_calls(sent.request)
    by_id = [c for c in calls if c.call_id == found.call_id]
    if by_id:
        return by_id[-1]
    wanted = _decoded(found.arguments)
    same = [c for c in calls if c.name == found.tool and _decoded(c.arguments) == wanted]
    return same[-1] if same else None


def _refusal(session: SessionRun, sent: Sent) -> str:
    """What the request's API answers such a body (the mock answered it so), or ""."""
    entry = next(e for e in session.entries if e.get("n") == sent.n)
    refusal = shape_named(sent.request.shape).refuse(entry["body"])
    return "" if refusal is None else refusal.message


def no_half_turn(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    found = crash(run, sessions)
    if isinstance(found, str):
        return _result(check, "error", found)
    problems: list[dict[str, Any]] = []
    for sent in found.resumed:
        calls = tool_calls(sent.request)
        problems += [
            {"request": sent.n, "call_id": c.call_id, "tool": c.name, "message": c.message}
            for c in calls
            if c.result is None
        ]
        late = [c for c in calls if not result_follows(sent.request, c)]
        refused = _refusal(run.sessions[0], sent) if late else ""
        problems += [
            {
                "request": sent.n,
                "call_id": c.call_id,
                "tool": c.name,
                "message": c.message,
                "result_message": c.result_message,
                "refused": refused,
            }
            for c in late
        ]
    count = _count(len(found.resumed), "request")
    if not problems:
        return _result(
            check,
            "pass",
            f"no request after the resume holds a call without its result ({count})",
            requests=len(found.resumed),
        )
    first = problems[0]
    if "refused" in first:
        refused = first["refused"][:QUOTE_CHARS]
        what = (
            f"holds a {first['tool']} call whose result does not follow it (the call in message"
            f" {first['message']}, its result in message {first['result_message']})"
            + (f"; its API refuses that: {refused}" if refused else "")
        )
    else:
        what = f"holds a {first['tool']} call without its result (message {first['message']})"
    return _result(
        check,
        "fail",
        f"request {first['request']} {what} ({len(problems)} in {count} after the resume)",
        requests=len(found.resumed),
        halves=problems[:10],
    )


def cold_equals_live(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    found = crash(run, sessions)
    if isinstance(found, str):
        return _result(check, "error", found)
    live = found.live.request.canonical_messages()
    cold = found.resumed[0].request.canonical_messages()
    figures = {"live_request": found.live.n, "resumed_request": found.resumed[0].n}
    index = next((i for i, m in enumerate(live) if i >= len(cold) or cold[i] != m), None)
    if index is None:
        return _result(
            check,
            "pass",
            f"the resumed session sends the {_count(len(live), 'message')} of the turns before"
            " the crash as the live session sent them",
            messages=len(live),
            **figures,
        )
    if index >= len(cold):
        what = f"ends after {_count(len(cold), 'message')}"
    else:
        what = f"rewrites message {index}: {cold[index][:QUOTE_CHARS]!r}"
    return _result(
        check,
        "fail",
        f"request {found.resumed[0].n}, the first after the resume, {what}"
        f" (live request {found.live.n} sent {_count(len(live), 'message')})",
        message=index,
        live=live[index][:QUOTE_CHARS],
        **figures,
    )


def truncate(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    found = crash(run, sessions)
    if isinstance(found, str):
        return _result(check, "error", found)
    first = found.resumed[0]
    call = interrupted_call(found, first)
    user = run.scenario.turns[found.turn].user
    kept_user = any(user in text for text in first.request.user_texts)
    figures: dict[str, Any] = {"request": first.n, "kept_user_message": kept_user}
    if call is None:
        where = ", its user message kept" if kept_user else " with its turn"
        return _result(
            check,
            "info",
            f"dropped{where}: the resumed session does not send the interrupted call",
            behaviour="dropped",
            **figures,
        )
    if call.result is not None:
        quote = call.result[:QUOTE_CHARS]
        return _result(
            check,
            "info",
            f"kept with a synthetic result: {quote!r}",
            behaviour="synthetic result",
            result=quote,
            result_chars=len(call.result),
            **figures,
        )
    return _result(
        check,
        "info",
        f"kept orphaned: the {call.name} call is sent with no result after it",
        behaviour="orphaned",
        **figures,
    )
