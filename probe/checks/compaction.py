"""The compaction checks. A compaction the person asks for (`/compact`) asks for its summary as
the next turn of the same conversation (`pfx.compact.turn`): the system prompt, the tool list and
every message of the loop's last request before it, then a message of its own. A harness that
asks for the summary again before going on is judged request by request against the same loop
request: a repeat that keeps the prefix meets the rule (it reads the conversation from the cache)
and is counted in the summary; one that does not fails it. After the summary
the history starts over from it (`pfx.compact.after`): the first request of the next turn holds
the summary and none of the messages it replaced.
"""

from __future__ import annotations

import json
from typing import Any

from ctxconf.shapes import parse_request
from ctxconf.shapes.wire import text_of_message

from ..harness import ProbeRun
from .changes import compaction, compaction_end, compaction_requests
from .model import CheckDef, CheckResult, Sent, _count, _result


def _summary(run: ProbeRun) -> str:
    turn = run.scenario.compact_turn()
    assert turn is not None, "the check applies only to a scenario with a compaction"
    return run.scenario.turns[turn].steps[0].value


def _extended(old: str, new: str) -> bool:
    """Whether a message was sent again with blocks added at its end (a prompt put on it)."""
    before, after = json.loads(old), json.loads(new)
    if not isinstance(before, dict) or not isinstance(after, dict):
        return False
    was, now = before.get("content"), after.get("content")
    if isinstance(was, str):
        was = [{"type": "text", "text": was}]
    if not isinstance(was, list) or not isinstance(now, list):
        return False
    rest = {k: v for k, v in before.items() if k != "content"}
    same = rest == {k: v for k, v in after.items() if k != "content"}
    return same and len(now) > len(was) and now[: len(was)] == was


def _not_next_turn(entry: dict[str, Any], before: Sent) -> list[str]:
    """How a compaction request differs from the loop's next turn after `before`."""
    request = parse_request(entry["shape"], entry["body"])
    loop = before.request
    wrong = []
    if (request.system or "") != (loop.system or ""):
        wrong.append("another system prompt")
    if not request.tools:
        wrong.append("no tools")
    elif request.canonical_tools() != loop.canonical_tools():
        wrong.append("another tool list")
    old, new = loop.canonical_messages(), request.canonical_messages()
    kept = next((i for i, m in enumerate(old) if i >= len(new) or new[i] != m), None)
    if kept is not None and kept < len(new) and _extended(old[kept], new[kept]):
        wrong.append(
            f"message {kept} of the loop's request {before.n} sent with its own prompt added"
            " at its end, not as a message after it"
        )
    elif kept is not None:
        wrong.append(f"message {kept} of the loop's request {before.n} not kept as sent")
    return wrong


def compact_turn(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    session, sent = run.sessions[0], sessions[0]
    entry = compaction(session)
    assert entry is not None, "the command need makes a run without one an error"
    before = next((s for s in reversed(sent) if s.n < entry["n"]), None)
    if before is None:
        return _result(check, "error", "no request of the loop came before the compaction")
    asked = compaction_requests(session)
    numbers = [int(e["n"]) for e in asked]
    figures: dict[str, Any] = {
        "request": entry["n"],
        "loop_request": before.n,
        "compaction_requests": numbers,
    }
    for each in asked:
        wrong = _not_next_turn(each, before)
        if wrong:
            which = "request" if each is entry else f"request asked again after {entry['n']}"
            return _result(
                check,
                "fail",
                f"the compaction {which} ({each['n']}) is not the loop's next turn: "
                + ", ".join(wrong),
                problems=wrong,
                **figures,
            )
    request = parse_request(entry["shape"], entry["body"])
    kept = (
        f"keeps the system prompt, the {_count(len(request.tools), 'tool')} and the"
        f" {_count(len(before.request.messages), 'message')} of the loop"
    )
    if len(asked) == 1:
        return _result(
            check,
            "pass",
            f"the compaction request ({entry['n']}) {kept}, and asks for the summary as the"
            " next turn",
            **figures,
        )
    return _result(
        check,
        "pass",
        f"the summary was asked for {len(asked)} times (requests"
        f" {', '.join(str(n) for n in numbers)}),"
        f" each as the loop's next turn: each {kept}, so a repeat re-sends the whole prefix"
        " (read from the cache, its output paid again)",
        **figures,
    )


def compact_after(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    session, sent = run.sessions[0], sessions[0]
    end = compaction_end(session)
    assert end is not None, "the command need makes a run without one an error"
    after = next((s for s in sent if s.n > end), None)
    if after is None:
        return _result(check, "error", "no request with tools came after the compaction")
    summary = _summary(run).strip().splitlines()[0]
    texts = [text_of_message(m) for m in after.request.messages]
    first_user = run.scenario.turns[0].user
    figures: dict[str, Any] = {"request": after.n, "messages": len(texts)}
    if not any(summary in t for t in texts):
        return _result(
            check,
            "fail",
            f"request {after.n}, the first after the compaction, does not hold its summary:"
            " the history did not start over from it",
            **figures,
        )
    old = sum(1 for t in texts if first_user in t and summary not in t)
    if old:
        return _result(
            check,
            "fail",
            f"request {after.n} holds the summary and still the messages it replaced (the"
            " session's first message among them): nothing was compacted",
            **figures,
        )
    return _result(
        check,
        "pass",
        f"request {after.n} starts over from the summary ({_count(len(texts), 'message')})",
        **figures,
    )


__all__ = ["compact_after", "compact_turn"]
