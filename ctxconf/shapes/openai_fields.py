"""What the two OpenAI shapes (Chat Completions and Responses) share: the caching settings of a
body, the cached and written tokens of a usage, the system and developer roles, and the id its
`x-request-id` header gives a request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxconf.cache.request import CacheSettings
from ctxconf.cache.units import mapping

from .answers import Tokens, token

SYSTEM_ROLES = ("system", "developer")
JSON_FORMATS = ("json_object", "json_schema")


def openai_settings(body: Mapping[str, Any]) -> CacheSettings:
    """OpenAI's caching fields, and llama.cpp's, whose server speaks the same shapes."""
    options = mapping(body.get("prompt_cache_options"))
    retention = options.get("ttl") or body.get("prompt_cache_retention")
    slot = body.get("id_slot")
    return CacheSettings(
        mode=str(options["mode"]) if "mode" in options else None,
        retention=str(retention) if retention is not None else None,
        cache_prompt=body.get("cache_prompt") is not False,
        slot=slot if isinstance(slot, int) and not isinstance(slot, bool) else None,
    )


def input_details(t: Tokens) -> dict[str, Any]:
    # `cache_write_tokens` beside the read, as OpenAI's breakpoint mode (GPT-5.6) reports it.
    return {"cached_tokens": t.cached, **({"cache_write_tokens": t.written} if t.written else {})}


def openai_request_id() -> str:
    return "req_" + token(32, "0123456789abcdef")


def wants_json(format_field: Any) -> bool:
    return isinstance(format_field, Mapping) and format_field.get("type") in JSON_FORMATS


__all__ = [
    "JSON_FORMATS",
    "SYSTEM_ROLES",
    "input_details",
    "openai_request_id",
    "openai_settings",
    "wants_json",
]
