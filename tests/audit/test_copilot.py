"""Copilot CLI: `assistant.usage` and `session.usage_record` events (input includes reads and
writes; the shutdown's running totals never a request) and the OTel file export (chat spans,
inference events not already seen; a read left out by an exporter that writes reads is 0); a
torn last line and a line that is not UTF-8 are one problem each."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ctxconf.audit.readers.copilot import READER
from ctxconf.audit.record import TokenClasses
from tests.audit.helpers import FIXTURES, head, read_all

EVENTS = FIXTURES / "copilot" / "session-state" / "c0ffee-1" / "events.jsonl"
OTEL = FIXTURES / "copilot" / "otel" / "copilot-otel-20260411.jsonl"


def test_each_usage_event_is_a_request_its_input_holding_the_cache() -> None:
    requests, problems = read_all(READER, EVENTS)
    first, second = requests
    # 1000 in all: 800 read, 100 written, so 100 uncached
    assert first.tokens == TokenClasses(100, 800, 100, None, 50)
    assert first.tokens.total_input == 1000
    assert (first.session, first.model, first.request_id) == ("c0ffee-1", "claude-sonnet-4.5", "e3")
    assert (first.harness, first.harness_version, first.project) == (
        "copilot-cli",
        "1.0.102",
        "/home/u/project",
    )
    # Copilot's cost is premium requests, never dollars
    assert (first.cost_usd, first.extra["premium_requests"]) == (None, 1)
    assert first.time == datetime(2026, 3, 15, 10, 0, 5, tzinfo=timezone.utc)
    # no cache figure given: N/A, not 0; the compaction before it is its boundary
    assert second.tokens == TokenClasses(2000, None, None, None, 10)
    assert second.boundary == "compaction"
    assert [(p.place.line, "torn" in p.message) for p in problems] == [(6, True)]
    assert problems[0].place.file == EVENTS


def test_the_otel_export_gives_one_request_per_model_call() -> None:
    requests, problems = read_all(READER, OTEL)
    assert [r.request_id for r in requests] == ["resp-1", "resp-2"]
    span, event = requests
    assert span.tokens == TokenClasses(19452 - 123 - 25, 123, 25, None, 281)
    assert (span.session, span.model, span.provider) == ("conv-1", "claude-sonnet-4", "github")
    assert span.time == datetime(2026, 4, 11, 19, 4, 24, 500000, tzinfo=timezone.utc)
    assert event.tokens == TokenClasses(500, None, None, None, 100)
    assert [(p.place.file, p.place.line, "not UTF-8" in p.message) for p in problems] == [
        (OTEL, 7, True)
    ]


def test_both_files_are_claimed_from_their_first_line_alone(tmp_path: object) -> None:
    for path in (EVENTS, OTEL):
        assert READER.claims(path, head(path))
    assert READER.places(FIXTURES) == [
        FIXTURES / ".copilot" / "session-state",
        FIXTURES / ".copilot" / "otel",
    ]


def _usage_record(call: str, sequence: int, total: int, read: int, **more: Any) -> dict[str, Any]:
    usage = {
        "model": "gpt-4.1",
        "inputTokens": total,
        "outputTokens": 10,
        "cacheReadTokens": read,
        "cacheWriteTokens": 0,
        "cost": 0.0,
        "apiCallId": call,
        "accounting": {"sequence": sequence, "usageId": call},
        "cacheDetailsReported": True,
        **more,
    }
    return {"type": "session.usage_record", "data": {"usage": usage}, "id": f"e{sequence}"}


def _shutdown(count: int, total: int, read: int) -> dict[str, Any]:
    usage = {"inputTokens": total, "cacheReadTokens": read, "cacheWriteTokens": 0}
    metrics = {"gpt-4.1": {"requests": {"count": count}, "usage": usage}}
    return {"type": "session.shutdown", "data": {"modelMetrics": metrics}, "id": f"x{count}"}


def _lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_usage_records_are_the_requests_and_the_shutdown_totals_are_not(tmp_path: Path) -> None:
    events = _lines(
        tmp_path / "session-state" / "s1" / "events.jsonl",
        [
            {"type": "session.start", "data": {"sessionId": "s1", "copilotVersion": "1.0.102"}},
            _usage_record("probe1", 1, 1000, 0),
            _usage_record("probe2", 2, 1100, 896),
            _shutdown(2, 2100, 896),  # the session so far
            {"type": "session.resume", "data": {}},
            _usage_record("probe2", 2, 1100, 896),  # the same call named again
            _usage_record("probe3", 3, 1200, 1024, cacheDetailsReported=False),
            _shutdown(3, 3300, 1920),  # the first process's two again, and the third
        ],
    )
    requests, problems = read_all(READER, events)
    assert problems == []
    assert [(r.request_id, r.extra["sequence"], r.boundary) for r in requests] == [
        ("probe1", 1, None),
        ("probe2", 2, None),
        ("probe3", 3, "resume"),
    ]
    assert [r.tokens for r in requests] == [
        TokenClasses(1000, 0, 0, None, 10),
        TokenClasses(1100 - 896, 896, 0, None, 10),
        # cache details not reported: its zeros and counts are not the provider's
        TokenClasses(1200, None, None, None, 10),
    ]
    assert {(r.session, r.harness_version) for r in requests} == {("s1", "1.0.102")}


def _chat_span(answer: str, provider: str, version: str, total: int, read: int | None) -> str:
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider,
        "gen_ai.conversation.id": "c1",
        "gen_ai.usage.input_tokens": total,
        "gen_ai.usage.output_tokens": 10,
        "gen_ai.response.id": answer,
    }
    if read is not None:
        attrs["gen_ai.usage.cache_read.input_tokens"] = read
    resource = {"attributes": {"service.name": "github-copilot", "service.version": version}}
    span = {"type": "span", "name": "chat gpt-4.1", "attributes": attrs, "resource": resource}
    return json.dumps(span)


def test_a_read_left_out_is_0_where_the_same_exporter_writes_reads(tmp_path: Path) -> None:
    path = tmp_path / ".copilot" / "otel" / "copilot-otel.jsonl"
    path.parent.mkdir(parents=True)
    spans = [
        _chat_span("r1", "openai", "1.0.102", 12000, None),  # nothing read: left out
        _chat_span("r2", "openai", "1.0.102", 12400, 12032),
        _chat_span("r3", "openai", "1.0.90", 500, None),  # another version, never a read
        _chat_span("r4", "other", "1.0.102", 700, None),  # another provider, never a read
    ]
    path.write_text("\n".join(spans) + "\n")
    requests, problems = read_all(READER, path)
    assert problems == []
    assert [(r.request_id, r.tokens) for r in requests] == [
        ("r1", TokenClasses(12000, 0, None, None, 10)),
        ("r2", TokenClasses(12400 - 12032, 12032, None, None, 10)),
        ("r3", TokenClasses(500, None, None, None, 10)),
        ("r4", TokenClasses(700, None, None, None, 10)),
    ]
    assert [r.extra.get("read_from_absence") for r in requests] == [True, None, None, None]
