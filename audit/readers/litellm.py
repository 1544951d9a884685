"""LiteLLM's StandardLoggingPayload as JSON lines (what a custom callback writes of
`kwargs["standard_logging_object"]`, one payload a line).

`prompt_tokens` is LiteLLM's OpenAI-shaped count, which includes the cached tokens whatever
the provider: uncached = prompt_tokens - read - written. The cache figures come from the
provider's usage LiteLLM keeps in `metadata.usage_object`: reads from
`prompt_tokens_details.cached_tokens` (else `cache_read_input_tokens`), writes from
`cache_creation_token_details.{ephemeral_5m,ephemeral_1h}_input_tokens` where split, else
`cache_creation_input_tokens` as five-minute writes. A payload without `usage_object` has no
cache figures: read and written are N/A. Where `prompt_tokens` is smaller than its cache
counts (a build that counted Anthropic's input apart), it is read as exclusive and the request
says so. `response_cost` is LiteLLM's own dollar figure.

`cache_hit`, `cache_key` and `saved_cache_cost` are LiteLLM's own response cache (an answer
replayed without asking the provider), not the provider's prompt cache: kept in `extra` only.
The body is `proxy_server_request` where the proxy stored it (`store_prompts_in_spend_logs`),
else the `messages` LiteLLM logged, as an OpenAI chat body. Session: `metadata.session_id`
(or LiteLLM's `litellm_session_id`), else `trace_id` groups nothing wider than one call, so
one session per file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..record import AuditRequest, Place, Problems, TokenClasses
from .answers import ANTHROPIC, CHAT, RESPONSES
from .base import (
    Reader,
    amount,
    count,
    dig,
    first_count,
    first_text,
    from_inclusive,
    json_lines,
    text_head,
    timestamp,
)

NAME = "litellm"
_SHAPES = {"anthropic_messages": ANTHROPIC, "aresponses": RESPONSES, "responses": RESPONSES}


def _claims(path: Path, head: bytes) -> bool:
    first = text_head(head).lstrip().split("\n", 1)[0]
    return first.startswith("{") and '"response_cost"' in first and '"call_type"' in first


def _places(home: Path) -> list[Path]:
    return []


def _read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    for number, payload in json_lines(path, problems):
        if "prompt_tokens" in payload or "metadata" in payload:
            yield _request(Place(path, number), path.name, payload)


def _request(place: Place, file_session: str, payload: dict[str, Any]) -> AuditRequest:
    found = payload.get("metadata")
    metadata: dict[str, Any] = found if isinstance(found, dict) else {}
    usage = metadata.get("usage_object")
    tokens, inclusive = _tokens(payload, usage if isinstance(usage, dict) else None)
    body, shape = _body(payload)
    extra: dict[str, Any] = {
        k: payload[k] for k in ("cache_hit", "saved_cache_cost") if payload.get(k) is not None
    }
    if not inclusive:
        extra["input_meaning"] = "exclusive: prompt_tokens was smaller than its cache counts"
    return AuditRequest(
        source=NAME,
        session=first_text(metadata, "session_id", "litellm_session_id") or file_session,
        place=place,
        tokens=tokens,
        time=timestamp(payload.get("startTime")),
        request_id=first_text(payload, "id"),
        model=first_text(payload, "model"),
        provider=first_text(payload, "custom_llm_provider")
        or first_text(payload.get("model_map_information") or {}, "provider"),
        cost_usd=amount(payload.get("response_cost")),
        body=body,
        shape=shape if body is not None else None,
        extra=extra,
    )


def _tokens(payload: dict[str, Any], usage: dict[str, Any] | None) -> tuple[TokenClasses, bool]:
    total = count(payload.get("prompt_tokens"))
    output = count(payload.get("completion_tokens"))
    if usage is None:
        return from_inclusive(total, None, None, None, output)
    read = count(dig(usage, "prompt_tokens_details", "cached_tokens"))
    if read is None:
        read = count(usage.get("cache_read_input_tokens"))
    split = usage.get("cache_creation_token_details")
    five = count(dig(split, "ephemeral_5m_input_tokens"))
    hour = count(dig(split, "ephemeral_1h_input_tokens"))
    if five is None and hour is None:
        five = count(usage.get("cache_creation_input_tokens"))
    if total is None:
        total = first_count(usage, "prompt_tokens")
    return from_inclusive(total, read, five, hour, output)


def _body(payload: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    shape = _SHAPES.get(str(payload.get("call_type")), CHAT)
    stored = payload.get("proxy_server_request")
    if isinstance(stored, dict) and stored:
        return stored, shape
    messages = payload.get("messages")
    if isinstance(messages, list) and messages:
        return {"model": payload.get("model"), "messages": messages}, CHAT
    return None, shape


READER = Reader(
    name=NAME,
    title="LiteLLM StandardLoggingPayload",
    semantics="prompt_tokens includes the cache (uncached = prompt_tokens - read - written); "
    "cache_hit is LiteLLM's own response cache, not the provider's",
    places=_places,
    claims=_claims,
    read=_read,
)
