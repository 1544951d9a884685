"""OTel GenAI: OTLP spans (inclusive input), Claude Code's api_request event (exclusive),
Gemini CLI's api_response in OTLP, a flat OpenInference span; a line that is not UTF-8 is
one problem and the lines after it are read."""

from __future__ import annotations

from datetime import datetime, timezone

from ctxconf.audit.readers.otel_genai import READER
from ctxconf.audit.record import TokenClasses
from tests.audit.helpers import FIXTURES, head, read_all

TRACES = FIXTURES / "otel_genai" / "traces.jsonl"


def test_every_model_call_is_a_request_in_its_own_meaning() -> None:
    assert READER.claims(TRACES, head(TRACES))
    requests, problems = read_all(READER, TRACES)
    chat, bare, claude, gemini, flat = requests
    # 1000 in all, of which 600 read and 100 written
    assert chat.tokens == TokenClasses(300, 600, 100, None, 50)
    assert (chat.session, chat.model, chat.provider, chat.request_id) == (
        "conv-9",
        "gpt-4.1-2025-04-14",
        "openai",
        "chatcmpl-o1",
    )
    assert chat.time == datetime(2026, 3, 15, 10, 0, tzinfo=timezone.utc)
    assert chat.harness_version == "0.3.0"
    # no cache attribute: N/A, not 0
    assert bare.tokens == TokenClasses(1100, None, None, None, 40)
    assert claude.tokens == TokenClasses(5, 20000, 1000, None, 120)
    assert (claude.harness, claude.session, claude.cost_usd) == ("claude-code", "cc-otel-1", 0.0512)
    assert gemini.tokens == TokenClasses(18625 - 18010, 18010, None, None, 188 + 12)
    assert (gemini.harness, gemini.session) == ("gemini-cli", "gem-s1")
    assert flat.tokens == TokenClasses(300 - 256, 256, None, None, 7)
    assert (flat.session, flat.model) == ("oi-1", "gpt-4o")
    assert [(p.place.file, p.place.line, "not UTF-8" in p.message) for p in problems] == [
        (TRACES, 3, True)
    ]
