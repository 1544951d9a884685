"""Cached-token accounting (`pfx.usage.*`): eleven providers' usage shapes, as four numbers.

Every provider reports the input side of a request differently: some count cache reads inside
their input total (OpenAI, Gemini, Ollama, DeepSeek, …), some leave them out (Anthropic's
`input_tokens`, llama.cpp's `timings.prompt_n`), and some leave the cache field out altogether
when it is not measured. `normalise_usage` turns one response (a body, or the list of a stream's
events) into a `Usage`: the input total, the tokens read from and written to the cache, and the
uncached rest. A number the response does not report is `None`, never a made-up 0.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any


@dataclass(frozen=True)
class Usage:
    """The input side of one request; `None` is "not reported", which is not 0."""

    input_total: int | None
    cache_read: int | None
    cache_write: int | None
    uncached: int | None

    @classmethod
    def of(cls, input_total: int | None, cache_read: int | None, cache_write: int | None) -> Usage:
        # Uncached is what the total holds besides the cache reads: known only when both are.
        # rule: pfx.usage.numbers
        # rule: pfx.usage.uncached-writes
        return cls(input_total, cache_read, cache_write, _difference(input_total, cache_read))

    def as_dict(self) -> dict[str, int | None]:
        return {
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "input_total": self.input_total,
            "uncached": self.uncached,
        }

    def canonical(self) -> str:
        """Sorted keys, no spaces, `null` for a number not reported."""
        # rule: pfx.usage.numbers
        return json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))


NOT_REPORTED = Usage(None, None, None, None)


class UsageShapeError(ValueError):
    """The response is not of the shape its provider sends (an object, or a list of events)."""


def _dig(data: object, *keys: str) -> object:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _whole(value: object) -> int | None:
    """A JSON number's value when it is a whole number (`100`, `100.0`, `1e2`), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    # rule: pfx.usage.whole-by-value
    if isinstance(value, float | Decimal) and math.isfinite(value) and value == int(value):
        return int(value)
    return None


def _count(data: object, *keys: str) -> int | None:
    """A token count at `keys`, or None when it is absent, null, not a whole number or negative."""
    value = _whole(_dig(data, *keys))
    if value is None or value < 0:
        # rule: pfx.usage.unreported
        return None
    return value


def _difference(minuend: int | None, subtrahend: int | None) -> int | None:
    """A count computed as a difference; None when a part is not reported or it is negative."""
    if minuend is None or subtrahend is None:
        return None
    difference = minuend - subtrahend
    # rule: pfx.usage.negative-not-reported
    return difference if difference >= 0 else None


def _first_count(data: object, *paths: tuple[str, ...]) -> int | None:
    """The first of the paths' counts that is one: a field present but null is passed over."""
    # rule: pfx.usage.mistral-first-count
    for path in paths:
        found = _count(data, *path)
        if found is not None:
            return found
    return None


def _sum(*parts: int | None) -> int | None:
    return None if any(part is None for part in parts) else sum(p for p in parts if p is not None)


# --- one parser per provider, over the object that carries the usage -----------------------


def _openai_chat(body: Mapping[str, Any]) -> Usage:
    # prompt_tokens includes the cached tokens; Chat Completions reports no cache writes.
    # rule: pfx.usage.openai-chat
    return Usage.of(
        _count(body, "usage", "prompt_tokens"),
        _count(body, "usage", "prompt_tokens_details", "cached_tokens"),
        None,
    )


def _openai_responses(body: Mapping[str, Any]) -> Usage:
    # rule: pfx.usage.openai-responses
    return Usage.of(
        _count(body, "usage", "input_tokens"),
        _count(body, "usage", "input_tokens_details", "cached_tokens"),
        _count(body, "usage", "input_tokens_details", "cache_write_tokens"),
    )


def _anthropic(body: Mapping[str, Any]) -> Usage:
    # input_tokens is only the part neither read from nor written to the cache.
    uncached_part = _count(body, "usage", "input_tokens")
    read = _count(body, "usage", "cache_read_input_tokens")
    write = _count(body, "usage", "cache_creation_input_tokens")
    # rule: pfx.usage.anthropic
    # rule: pfx.usage.input-without-cache
    return Usage.of(_sum(uncached_part, read, write), read, write)


def _gemini(body: Mapping[str, Any]) -> Usage:
    metadata = _dig(body, "usageMetadata")
    total = _count(metadata, "promptTokenCount")
    read = _count(metadata, "cachedContentTokenCount")
    given = isinstance(metadata, Mapping) and "cachedContentTokenCount" in metadata
    if total is not None and not given:
        # Gemini's JSON leaves out a count that is 0, so beside a total its absence is 0.
        # rule: pfx.usage.gemini
        # rule: pfx.usage.gemini-missing-zero
        read = 0
    return Usage.of(total, read, None)


def _llamacpp(body: Mapping[str, Any]) -> Usage:
    if not isinstance(body.get("timings"), Mapping):
        return _openai_chat(body)
    # prompt_n counts only the tokens processed afresh; cache_n the ones reused.
    cache_n = _count(body, "timings", "cache_n")
    prompt_n = _count(body, "timings", "prompt_n")
    # rule: pfx.usage.llamacpp
    # rule: pfx.usage.input-without-cache
    return Usage.of(_sum(cache_n, prompt_n), cache_n, None)


def _vllm(body: Mapping[str, Any]) -> Usage:
    # prompt_tokens_details is null unless the server runs with --enable-prompt-tokens-details.
    # rule: pfx.usage.vllm
    return _openai_chat(body)


def _ollama(body: Mapping[str, Any]) -> Usage:
    total = _count(body, "prompt_eval_count")
    # rule: pfx.usage.ollama
    return Usage.of(total, _count(body, "prompt_eval_cached_count"), None)


def _openrouter(body: Mapping[str, Any]) -> Usage:
    # rule: pfx.usage.openrouter
    return Usage.of(
        _count(body, "usage", "prompt_tokens"),
        _count(body, "usage", "prompt_tokens_details", "cached_tokens"),
        _count(body, "usage", "prompt_tokens_details", "cache_write_tokens"),
    )


def _deepseek(body: Mapping[str, Any]) -> Usage:
    hit = _count(body, "usage", "prompt_cache_hit_tokens")
    miss = _count(body, "usage", "prompt_cache_miss_tokens")
    total = _count(body, "usage", "prompt_tokens")
    if total is None:
        total = _sum(hit, miss)
    # rule: pfx.usage.deepseek
    read = hit
    if read is None:
        read = _count(body, "usage", "prompt_tokens_details", "cached_tokens")
    return Usage.of(total, read, None)


def _mistral(body: Mapping[str, Any]) -> Usage:
    read = _first_count(
        body,
        ("usage", "prompt_tokens_details", "cached_tokens"),
        ("usage", "prompt_token_details", "cached_tokens"),
        ("usage", "num_cached_tokens"),
    )
    # rule: pfx.usage.mistral
    return Usage.of(_count(body, "usage", "prompt_tokens"), read, None)


def _bedrock(body: Mapping[str, Any]) -> Usage:
    # totalTokens and outputTokens are always there; their difference is the whole input,
    # whether or not inputTokens counts the cache reads and writes.
    total = _count(body, "usage", "totalTokens")
    output = _count(body, "usage", "outputTokens")
    # rule: pfx.usage.bedrock
    # rule: pfx.usage.bedrock-no-fallback
    # rule: pfx.usage.bedrock-total
    input_total = _difference(total, output)
    return Usage.of(
        input_total,
        _count(body, "usage", "cacheReadInputTokens"),
        _count(body, "usage", "cacheWriteInputTokens"),
    )


# --- where a stream carries its usage --------------------------------------------------------


def _last(events: Sequence[object], has: Callable[[Mapping[str, Any]], bool]) -> Mapping[str, Any]:
    found: Mapping[str, Any] = {}
    for event in events:
        # An event that is not an object, as the "[DONE]" string, carries no usage.
        # rule: pfx.usage.stream-not-an-object
        if isinstance(event, Mapping) and has(event):
            # rule: pfx.usage.stream
            found = event
    return found


def _chat_stream(events: Sequence[object]) -> Mapping[str, Any]:
    # The usage chunk comes last, and only when the request asked for it.
    return _last(events, lambda e: isinstance(e.get("usage"), Mapping))


def _llamacpp_stream(events: Sequence[object]) -> Mapping[str, Any]:
    with_timings = _last(events, lambda e: isinstance(e.get("timings"), Mapping))
    return with_timings or _chat_stream(events)


def _responses_stream(events: Sequence[object]) -> Mapping[str, Any]:
    done = _last(events, lambda e: isinstance(_dig(e, "response", "usage"), Mapping))
    response = done.get("response")
    return response if isinstance(response, Mapping) else {}


def _anthropic_stream(events: Sequence[object]) -> Mapping[str, Any]:
    # message_start has the input side; each message_delta repeats fields cumulatively, so a
    # field it carries replaces the earlier value and is never added to it.
    usage: dict[str, Any] = {}
    for event in events:
        if not isinstance(event, Mapping):
            continue
        if event.get("type") == "message_start":
            start = _dig(event, "message", "usage")
            if isinstance(start, Mapping):
                usage.update(start)
        elif event.get("type") == "message_delta" and isinstance(event.get("usage"), Mapping):
            # rule: pfx.usage.anthropic
            # rule: pfx.usage.anthropic-replaces
            usage.update({k: v for k, v in event["usage"].items() if v is not None})
    return {"usage": usage} if usage else {}


def _gemini_stream(events: Sequence[object]) -> Mapping[str, Any]:
    return _last(events, lambda e: isinstance(e.get("usageMetadata"), Mapping))


def _ollama_stream(events: Sequence[object]) -> Mapping[str, Any]:
    return _last(events, lambda e: e.get("done") is True)


def _bedrock_stream(events: Sequence[object]) -> Mapping[str, Any]:
    metadata = _last(events, lambda e: isinstance(e.get("metadata"), Mapping)).get("metadata")
    return metadata if isinstance(metadata, Mapping) else {}


@dataclass(frozen=True)
class _Provider:
    parse: Callable[[Mapping[str, Any]], Usage]
    stream: Callable[[Sequence[object]], Mapping[str, Any]]


PROVIDERS: dict[str, _Provider] = {
    "openai-chat": _Provider(_openai_chat, _chat_stream),
    "openai-responses": _Provider(_openai_responses, _responses_stream),
    "anthropic": _Provider(_anthropic, _anthropic_stream),
    "gemini": _Provider(_gemini, _gemini_stream),
    "llamacpp": _Provider(_llamacpp, _llamacpp_stream),
    "vllm": _Provider(_vllm, _chat_stream),
    "ollama": _Provider(_ollama, _ollama_stream),
    "openrouter": _Provider(_openrouter, _chat_stream),
    "deepseek": _Provider(_deepseek, _chat_stream),
    "mistral": _Provider(_mistral, _chat_stream),
    "bedrock": _Provider(_bedrock, _bedrock_stream),
}


def normalise_usage(provider: str, body_or_events: object, stream: bool) -> Usage:
    """The usage of one response: `body_or_events` is the response body (an object), or for a
    stream the list of its events' JSON payloads in order."""
    if provider not in PROVIDERS:
        raise UsageShapeError(f"unknown provider {provider!r}; known: {', '.join(PROVIDERS)}")
    shape = PROVIDERS[provider]
    if stream:
        if not isinstance(body_or_events, list):
            raise UsageShapeError("a streamed response is the list of its events")
        carrier = shape.stream(body_or_events)
        # rule: pfx.usage.stream-no-usage
        return shape.parse(carrier) if carrier else NOT_REPORTED
    if not isinstance(body_or_events, Mapping):
        raise UsageShapeError("a response body is a JSON object")
    return shape.parse(body_or_events)


__all__ = ["NOT_REPORTED", "PROVIDERS", "Usage", "UsageShapeError", "normalise_usage"]
