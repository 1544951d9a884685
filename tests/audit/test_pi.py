"""pi: each assistant message with usage is a request, its input apart from the cache."""

from __future__ import annotations

from datetime import datetime, timezone

from ctxconf.audit.readers.pi import READER
from ctxconf.audit.record import TokenClasses
from tests.audit.helpers import FIXTURES, head, read_all

SESSION = FIXTURES / "pi" / "2026-03-15T10-00-00_5b1e.jsonl"


def test_assistant_messages_are_requests_with_pi_s_own_figures() -> None:
    assert READER.claims(SESSION, head(SESSION))
    requests, problems = read_all(READER, SESSION)
    first, after = requests
    assert first.tokens == TokenClasses(12, 4000, 200, None, 30)
    assert first.tokens.total_input == 4212
    assert (first.session, first.project, first.model, first.provider) == (
        "5b1e-pi",
        "/home/u/project",
        "claude-sonnet-4-5",
        "anthropic",
    )
    assert (first.cost_usd, first.request_id, first.harness) == (0.002436, "a2", "pi")
    assert first.time == datetime(2026, 3, 15, 10, 0, 3, tzinfo=timezone.utc)
    # pi writes 0 where nothing was read: a figure, not N/A
    assert after.tokens == TokenClasses(640, 0, 0, None, 15)
    assert after.boundary == "compaction"
    assert [(p.place.file, p.place.line, "torn" in p.message) for p in problems] == [
        (SESSION, 7, True)
    ]
