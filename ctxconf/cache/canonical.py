"""The bytes a provider hashes for one part of a request, written the same way every time.

A provider renders the fields of a block, not the JSON text a harness happened to write, so the
keys of the envelope (a block, a message, a tool) are sorted. What the model reads as written is
kept in the order sent: a tool call's arguments, a tool's parameter schema, a function's response
(a harness whose JSON library reorders keys between requests does break the cache). Cache marks
(`cache_control`, `prompt_cache_breakpoint`) are left out: a mark is where to cache, not what.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

# Keys whose value the model reads as sent; everything under them keeps its order.
VERBATIM_KEYS = frozenset(
    {
        "input",
        "args",
        "arguments",
        "response",
        "input_schema",
        "parameters",
        "parametersJsonSchema",
        "parameters_json_schema",
    }
)
MARK_KEYS = frozenset({"cache_control", "prompt_cache_breakpoint"})


def _envelope(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: value[key] if key in VERBATIM_KEYS else _envelope(value[key])
            for key in sorted(value)
            if key not in MARK_KEYS
        }
    if isinstance(value, list):
        return [_envelope(item) for item in value]
    return value


def _dumps(value: Any, sort: bool) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort)


def canonical(value: Any) -> bytes:
    """`value` as the bytes of the cache audit: envelope keys sorted, marks dropped."""
    return _dumps(_envelope(value), sort=False).encode("utf-8")


def order_free_digest(value: Any) -> bytes:
    """A digest of `value` with every key sorted, so two values that differ only in the order of
    their keys have the same one."""
    return hashlib.sha256(_dumps(_envelope(value), sort=True).encode("utf-8")).digest()


def verbatim(value: Any) -> str:
    """`value` as JSON text in the order sent (a tool's schema, as the model reads it)."""
    return _dumps(value, sort=False)


def canonical_text(value: Any) -> str | None:
    """A parameter's value as canonical JSON text, None when it is absent."""
    return None if value is None else canonical(value).decode("utf-8")


__all__ = [
    "MARK_KEYS",
    "VERBATIM_KEYS",
    "canonical",
    "canonical_text",
    "order_free_digest",
    "verbatim",
]
