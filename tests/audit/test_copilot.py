"""Copilot CLI: `assistant.usage` events (input includes reads and writes) and the OTel file
export (chat spans, inference events not already seen); a torn last line and a line that is
not UTF-8 are one problem each."""

from __future__ import annotations

from datetime import datetime, timezone

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
