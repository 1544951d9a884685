"""LiteLLM's StandardLoggingPayload: prompt_tokens holds the cache; cache figures only from
`metadata.usage_object`; `cache_hit` is LiteLLM's own cache, kept apart."""

from __future__ import annotations

from datetime import datetime, timezone

from ctxconf.audit.readers.litellm import READER
from ctxconf.audit.record import TokenClasses
from tests.audit.helpers import FIXTURES, head, read_all

SPEND = FIXTURES / "litellm" / "spend.jsonl"


def test_payloads_are_requests_with_the_provider_s_cache_figures() -> None:
    assert READER.claims(SPEND, head(SPEND))
    requests, problems = read_all(READER, SPEND)
    anthropic, uncounted, odd = requests
    # 17411 in all: 17102 read, 300 written for an hour, 9 uncached
    assert anthropic.tokens == TokenClasses(9, 17102, 0, 300, 30)
    assert (anthropic.session, anthropic.cost_usd, anthropic.provider) == (
        "lite-s1",
        0.0123,
        "anthropic",
    )
    assert anthropic.time == datetime(2026, 3, 15, 10, 0, 0, 500000, tzinfo=timezone.utc)
    assert (anthropic.shape, anthropic.body) == (
        "openai-chat",
        {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert anthropic.extra == {"cache_hit": False, "saved_cache_cost": 0.0}
    # no usage object: no cache figure (N/A); cache_hit is LiteLLM's response cache
    assert uncounted.tokens == TokenClasses(500, None, None, None, 12)
    assert (uncounted.session, uncounted.extra["cache_hit"]) == ("spend.jsonl", True)
    # prompt_tokens smaller than its reads cannot hold them: read apart, and said
    assert odd.tokens == TokenClasses(40, 1000, 0, None, 12)
    assert "exclusive" in odd.extra["input_meaning"]
    assert [(p.place.file, p.place.line, "not UTF-8" in p.message) for p in problems] == [
        (SPEND, 3, True)
    ]
