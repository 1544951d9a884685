"""What OpenTelemetry records share, for the readers of OTel files (otel_genai.py, and
copilot.py for Copilot CLI's file export): attributes in either spelling (OTLP JSON's
`[{key, value: {intValue|stringValue|…}}]`, or a flat object), times in either form, and the
GenAI conventions' token figures.

The GenAI conventions count cache reads and writes inside `gen_ai.usage.input_tokens` ("SHOULD
be included"), so the uncached are input - read - written; the names in use before and beside
the current ones are read too: `gen_ai.usage.cache_read_input_tokens`,
`gen_ai.usage.input_tokens.cached`, `gen_ai.usage.input_tokens.cache_write`, and OpenInference's
`llm.token_count.prompt_details.cache_read` / `cache_write` (also inside its prompt count).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from ..record import TokenClasses
from .base import first_count, from_inclusive, timestamp

INPUT = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt")
READ = (
    "gen_ai.usage.cache_read.input_tokens",
    "gen_ai.usage.cache_read_input_tokens",
    "gen_ai.usage.input_tokens.cached",
    "llm.token_count.prompt_details.cache_read",
)
WRITTEN = (
    "gen_ai.usage.cache_creation.input_tokens",
    "gen_ai.usage.cache_creation_input_tokens",
    "gen_ai.usage.input_tokens.cache_write",
    "llm.token_count.prompt_details.cache_write",
)
OUTPUT = (
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "llm.token_count.completion",
)
MODEL = ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name", "model")
SESSION = ("session.id", "gen_ai.conversation.id", "session_id")


def attributes(value: Any) -> dict[str, Any]:
    """Attributes as one flat object, from OTLP JSON's list or an exporter's object."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if not isinstance(value, list):
        return {}
    return {
        item["key"]: _plain(item.get("value"))
        for item in value
        if isinstance(item, dict) and isinstance(item.get("key"), str)
    }


def _plain(value: Any) -> Any:
    """An OTLP `AnyValue` as a plain value (64-bit integers come as text in OTLP JSON)."""
    if not isinstance(value, dict) or len(value) != 1:
        return value
    kind, inner = next(iter(value.items()))
    if kind == "intValue" and isinstance(inner, str) and inner.lstrip("-").isdigit():
        return int(inner)
    if kind in ("intValue", "stringValue", "doubleValue", "boolValue"):
        return inner
    return value


def otel_time(value: Any) -> datetime | None:
    """A time as OTel files give it: Unix nanoseconds (number or text), `[seconds, nanos]`
    (JavaScript's hrtime), or ISO text."""
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return datetime.fromtimestamp(value[0] + value[1] / 1e9, tz=timezone.utc)
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value > 10**15:
        return datetime.fromtimestamp(value / 1e9, tz=timezone.utc)
    return timestamp(value)


def genai_tokens(attrs: dict[str, Any]) -> tuple[TokenClasses, bool] | None:
    """The GenAI token figures of one span or event in four classes, or None where it has
    none. Inclusive by the conventions; a cache class the record does not name is N/A."""
    total = first_count(attrs, *INPUT)
    read = first_count(attrs, *READ)
    written = first_count(attrs, *WRITTEN)
    if total is None and read is None and written is None:
        return None
    return from_inclusive(total, read, written, None, first_count(attrs, *OUTPUT))
