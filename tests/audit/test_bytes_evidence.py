"""Where a source keeps the bodies, a loss's cause comes from the bytes through the probe's own
cache audit; identical bytes that still missed are the provider's miss; the words, the console
and the page name a request by its place in its session, counted from one."""

from __future__ import annotations

import dataclasses
import io
from typing import Any

from ctxconf.audit.bytes_evidence import BodiesPlayed, Clock, bytes_findings, read_body
from ctxconf.audit.console import print_console
from ctxconf.audit.page import render_page
from ctxconf.audit.record import AuditRequest
from ctxconf.audit.results import results
from ctxconf.audit.sessions import SessionAudit
from ctxconf.audit.summary import summarize
from ctxconf.audit.timeline import session_timeline
from ctxconf.cache import bundled_prices
from ctxconf.cache.canonical import canonical_text

from .helpers import request

TOOLS = [{"name": "Read", "description": "Reads a file.", "input_schema": {"type": "object"}}]
RULES = "Follow the house rules. " * 400  # about 2,400 tokens: over every model's minimum


def body(system_date: str, answers: int) -> dict[str, Any]:
    """A request after `answers` answers: each earlier turn as it was sent, the last question
    marked."""
    turns: list[dict[str, Any]] = []
    for n in range(answers):
        turns.append({"role": "user", "content": [{"type": "text", "text": f"question {n}"}]})
        turns.append({"role": "assistant", "content": f"answer {n}"})
    mark = {"type": "ephemeral"}
    last = {"type": "text", "text": f"question {answers}", "cache_control": mark}
    turns.append({"role": "user", "content": [last]})
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1000,
        "system": [
            {
                "type": "text",
                "text": f"Today is {system_date}. {RULES}",
                "cache_control": {"type": "ephemeral"},
            }
        ],
        "tools": TOOLS,
        "messages": turns,
    }


def test_a_date_in_the_system_prompt_is_named_with_its_byte_and_rule() -> None:
    requests = [
        request(1, 0, read=0, w5m=2_500, body=body("2026-12-01", 0), shape="anthropic"),
        request(2, 30, read=0, w5m=2_520, body=body("2026-12-02", 1), shape="anthropic"),
    ]
    findings = bytes_findings(requests)
    assert set(findings) == {0, 1}
    steps = session_timeline(requests, findings)
    cause = steps[1].cause
    assert cause is not None
    assert (cause.kind, cause.basis, cause.anchor) == (
        "system-date",
        "bytes",
        "pfx.system.no-clock",
    )
    # The first byte that differs, counted in the unit's canonical bytes.
    first = body("2026-12-01", 0)["system"][0]
    text = canonical_text({k: v for k, v in first.items() if k != "cache_control"})
    assert cause.unit == "system.0"
    assert cause.byte == text.index("2026-12-01") + len("2026-12-0")
    assert steps[1].lost == 2_500


def test_identical_bytes_within_the_lifetime_that_missed_are_the_providers_miss() -> None:
    requests = [
        request(1, 0, read=0, w5m=2_500, body=body("2026-12-01", 0), shape="anthropic"),
        request(2, 30, read=0, w5m=2_520, body=body("2026-12-01", 1), shape="anthropic"),
    ]
    steps = session_timeline(requests, bytes_findings(requests))
    cause = steps[1].cause
    assert cause is not None
    assert (cause.kind, cause.basis, cause.blame) == ("provider-side", "bytes", "provider")
    finding = steps[1].finding
    assert finding is not None and finding.simulated_read is not None
    assert (
        f"rules read {finding.simulated_read:,} of these bytes, the provider read 0" in cause.detail
    )


def thinking_body(turns: int) -> dict[str, Any]:
    """A request of a thinking model's session: turn 1 reads a file (its answers each sent back
    with their thinking first), then, from turn 2, a new question; its last block marked."""
    thinking = {"type": "thinking", "thinking": "I should read it.", "signature": "sig1"}
    call = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "A.txt"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "line of A " * 400}
    said = {"type": "thinking", "thinking": "I read it.", "signature": "sig2"}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "Read A.txt"}]},
        {"role": "assistant", "content": [thinking, call]},
        {"role": "user", "content": [result]},
    ]
    if turns > 1:
        messages += [
            {"role": "assistant", "content": [said, {"type": "text", "text": "It says A."}]},
            {"role": "user", "content": [{"type": "text", "text": "Read it again, please."}]},
        ]
    last = messages[-1]["content"][-1]
    messages[-1]["content"][-1] = {**last, "cache_control": {"type": "ephemeral"}}
    return {**body("2026-12-01", 0), "thinking": {"type": "enabled"}, "messages": messages}


def test_earlier_thinking_a_last_turn_only_model_drops_is_the_providers_doing() -> None:
    # Sonnet 4.5 is last-turn-only: at turn 2 the provider drops turn 1's thinking, so the read
    # falls to the system prompt and tools. The bytes are compared as the provider read them:
    # the harness sent turn 1 back as it came and rewrote nothing.
    requests = [
        request(1, 0, read=0, w5m=3_500, body=thinking_body(1), shape="anthropic"),
        request(2, 10, read=2_400, w5m=1_200, body=thinking_body(2), shape="anthropic"),
    ]
    findings = bytes_findings(requests)
    assert findings[1].causes[0].kind == "reasoning-dropped"
    cause = session_timeline(requests, findings)[1].cause
    assert cause is not None
    assert (cause.kind, cause.basis, cause.blame) == ("reasoning-dropped", "bytes", "provider")


def _expiring_session() -> list[AuditRequest]:
    """Four requests, the first without a kept body; the fourth comes after the five minutes
    of the entry the third read."""
    return [
        request(1, 0, read=0, w5m=2_500),
        request(2, 10, read=0, w5m=2_500, body=body("2026-12-01", 0), shape="anthropic"),
        request(3, 20, read=2_500, w5m=20, body=body("2026-12-01", 1), shape="anthropic"),
        request(4, 420, read=0, w5m=2_540, body=body("2026-12-01", 2), shape="anthropic"),
    ]


def test_words_name_a_request_by_its_place_in_the_session_from_one() -> None:
    requests = _expiring_session()
    steps = session_timeline(requests, bytes_findings(requests))
    cause = steps[3].cause
    assert cause is not None and cause.kind == "expired"
    # The third of the session, though only the second with a body.
    assert "request 3 last wrote or read" in cause.detail


def test_the_console_and_the_page_count_requests_from_one() -> None:
    requests = _expiring_session()
    steps = tuple(session_timeline(requests, bytes_findings(requests)))
    summary = summarize([SessionAudit("test", "s1", steps)], bundled_prices())
    doc = results(summary, ["/records/s1.jsonl"], [], "bundled")
    assert [step["index"] for step in doc["sessions"][0]["timeline"]] == [0, 1, 2, 3]
    out = io.StringIO()
    print_console(doc, out)
    assert "test #4: lost 2,520 tokens" in out.getvalue()
    page = render_page(doc)
    assert "<strong>#4 lost 2,520 tokens" in page
    assert "s after #3 · read 0" in page


def test_bodies_let_go_leave_what_a_session_begun_with_the_rest_finds() -> None:
    # Five turns; the sixth sends the second again (read whole from its entry, while its body is
    # kept); the seventh changes the system prompt's date. With the first three bodies let go
    # after the fifth, each later finding is what a session begun with the rest finds.
    plan = [("2026-12-01", n) for n in range(5)]
    plan += [("2026-12-01", 1), ("2026-12-02", 5), ("2026-12-02", 6)]
    requests = [
        request(n + 1, 10 * n, read=0, w5m=2_500, body=body(date, answers), shape="anthropic")
        for n, (date, answers) in enumerate(plan)
    ]
    clock, played, found = Clock(), BodiesPlayed("anthropic"), {}
    for index, sent in enumerate(requests):
        found[index] = played.add(index, read_body(sent, index, clock.at(sent.time)))
        if index == 4:
            played.keep_last(2)
            assert played.indexes == [3, 4]
    rest = [dataclasses.replace(r, body=None) if n < 3 else r for n, r in enumerate(requests)]
    fresh, whole = bytes_findings(rest), bytes_findings(requests)
    assert [found[n] for n in range(5, 8)] == [fresh[n] for n in range(5, 8)]
    assert [found[n] for n in range(5)] == [whole[n] for n in range(5)]
    # What was let go is not read from: the sixth reads less than with the second's body kept.
    again, kept = found[5].simulated_read, whole[5].simulated_read
    assert again is not None and kept is not None and again < kept
    assert (found[6].against, found[6].causes[0].kind) == (5, "system-date")
