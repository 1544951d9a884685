"""Langfuse generations as exported: a JSON array (the UI's JSON export, or the public API's
`{"data": [...]}`) or JSON lines (blob-storage exports), API spelling (`usageDetails`,
`startTime`, `traceId`) or the exports' snake case (`usage_details`, `start_time`, `trace_id`).

`usageDetails` has free-form keys, and Langfuse's model is that they are apart: its UI adds up
every key with "input" in its name. So `input` is read as excluding the cache: uncached =
`input`; read = `input_cached_tokens` (its OpenAI integration, which takes the cached tokens
out of `input`), else `input_cache_read` or `cache_read_input_tokens` (Anthropic-style
integrations); written (five-minute) = `input_cache_creation` or `cache_creation_input_tokens`,
unless `input_cache_creation_5m`/`_1h` split them. A generation without any of these keys has
no cache figures (N/A). Cost: `costDetails.total`, else `calculatedTotalCost`/`totalCost`.
Observations that are not generations are passed over. Session: `sessionId`, else the trace.

Not confirmed: that every integration keeps `input` apart from the cache (one that copies
OpenAI's `prompt_tokens` into `input` would count reads twice), and the exact columns of the
UI's JSON export (the blob-storage and API field lists were read).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..record import AuditRequest, Place, Problems, TokenClasses
from .base import Reader, amount, first_count, first_text, json_records, text_head, timestamp

NAME = "langfuse"
READ = ("input_cached_tokens", "input_cache_read", "cache_read_input_tokens", "input_cached")
WRITTEN = ("input_cache_creation", "cache_creation_input_tokens", "input_cache_write")


def _claims(path: Path, head: bytes) -> bool:
    text = text_head(head)
    usage = '"usageDetails"' in text or '"usage_details"' in text
    return usage and ('"traceId"' in text or '"trace_id"' in text)


def _places(home: Path) -> list[Path]:
    return []


def _read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    for place, item in json_records(path, problems):
        if str(item.get("type", "GENERATION")).upper() != "GENERATION":
            continue
        usage = _get(item, "usageDetails", "usage_details")
        if isinstance(usage, dict):
            yield _request(place, path.name, item, usage)


def _get(item: dict[str, Any], *keys: str) -> Any:
    return next((item[k] for k in keys if item.get(k) is not None), None)


def _request(
    place: Place, file_session: str, item: dict[str, Any], usage: dict[str, Any]
) -> AuditRequest:
    five = first_count(usage, "input_cache_creation_5m")
    hour = first_count(usage, "input_cache_creation_1h")
    if five is None and hour is None:
        five = first_count(usage, *WRITTEN)
    cost = _get(item, "costDetails", "cost_details")
    return AuditRequest(
        source=NAME,
        session=first_text(item, "sessionId", "session_id", "traceId", "trace_id") or file_session,
        place=place,
        tokens=TokenClasses(
            uncached=first_count(usage, "input"),
            read=first_count(usage, *READ),
            written_5m=five,
            written_1h=hour,
            output=first_count(usage, "output"),
        ),
        time=timestamp(_get(item, "startTime", "start_time")),
        request_id=first_text(item, "id"),
        model=first_text(item, "model", "providedModelName", "provided_model_name"),
        cost_usd=amount(cost.get("total") if isinstance(cost, dict) else None)
        or amount(_get(item, "calculatedTotalCost", "totalCost", "total_cost")),
    )


READER = Reader(
    name=NAME,
    title="Langfuse generations",
    semantics="usageDetails keys are apart: uncached = input, read = input_cached_tokens or "
    "input_cache_read, written = input_cache_creation",
    places=_places,
    claims=_claims,
    read=_read,
)
