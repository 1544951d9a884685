"""Helicone request rows as exported (`@helicone/export`: a JSON array or JSON lines; the
REST API's `{"data": [...]}`), each with `request_body`/`response_body` where the export
included bodies, and Helicone's columns `prompt_tokens, prompt_cache_write_tokens,
prompt_cache_read_tokens, completion_tokens, cost`.

Where the row keeps the answer, its usage is read as the provider gave it (answers.py:
Anthropic's input excludes the cache, OpenAI's and Gemini's include it), the shape told by
`request_path` or, failing that, `provider`. Without it, Helicone's columns are used:
`prompt_tokens` taken as including the cache for every provider but Anthropic, whose input
Helicone keeps as Anthropic gives it (excluding); reads = `prompt_cache_read_tokens`, writes
(five-minute) = `prompt_cache_write_tokens`. The request body is kept with its shape. Session:
the `Helicone-Session-Id` property, else one per file. `cost` (or `costUSD`) is Helicone's own
dollar figure.

Not confirmed: how Helicone fills `prompt_tokens` for each provider (the columns' meaning
above is inferred from Helicone's cost inputs), and the export's field order and wrapping.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..record import AuditRequest, Place, Problems, TokenClasses
from .answers import ANTHROPIC, CHAT, GEMINI, PROVIDERS, Answer, read_answer, shape_of_url
from .base import (
    Reader,
    amount,
    first_count,
    first_text,
    from_inclusive,
    json_records,
    text_head,
    timestamp,
)

NAME = "helicone"
_PROVIDER_SHAPES = {"ANTHROPIC": ANTHROPIC, "anthropic": ANTHROPIC, "GOOGLE": GEMINI}


def _claims(path: Path, head: bytes) -> bool:
    text = text_head(head)
    if '"response_cost"' in text:
        return False  # LiteLLM's payloads carry a request id too
    return '"request_id"' in text and (
        '"prompt_cache_read_tokens"' in text or '"request_created_at"' in text
    )


def _places(home: Path) -> list[Path]:
    return []


def _read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    for place, row in json_records(path, problems):
        yield _request(place, path.name, row)


def _request(place: Place, file_session: str, row: dict[str, Any]) -> AuditRequest:
    shape = _shape(row)
    answer = _answer(shape, row.get("response_body"))
    if answer is not None and answer.tokens is not None:
        tokens, consistent = answer.tokens, answer.consistent
    else:
        tokens, consistent = _columns(shape, row)
    body = row.get("request_body")
    properties = row.get("request_properties") or row.get("properties") or {}
    return AuditRequest(
        source=NAME,
        session=first_text(properties, "Helicone-Session-Id", "helicone-session-id")
        or file_session,
        place=place,
        tokens=tokens,
        time=timestamp(row.get("request_created_at")),
        request_id=first_text(row, "request_id"),
        model=first_text(row, "request_model", "model", "response_model"),
        provider=PROVIDERS[shape],
        cost_usd=amount(row.get("cost"))
        if row.get("cost") is not None
        else amount(row.get("costUSD")),
        body=body if isinstance(body, dict) else None,
        shape=shape if isinstance(body, dict) else None,
        diagnostics=answer.diagnostics if answer else None,
        status=row["response_status"] if isinstance(row.get("response_status"), int) else None,
        extra={} if consistent else {"input_meaning": "exclusive: input below its cache counts"},
    )


def _shape(row: dict[str, Any]) -> str:
    path = row.get("request_path") or row.get("target_url")
    found = shape_of_url(path) if isinstance(path, str) else None
    return found or _PROVIDER_SHAPES.get(str(row.get("provider")), CHAT)


def _answer(shape: str, body: Any) -> Answer | None:
    if isinstance(body, dict):
        return read_answer(shape, json.dumps(body))
    return read_answer(shape, body) if isinstance(body, str) else None


def _columns(shape: str, row: dict[str, Any]) -> tuple[TokenClasses, bool]:
    total = first_count(row, "prompt_tokens")
    read = first_count(row, "prompt_cache_read_tokens")
    written = first_count(row, "prompt_cache_write_tokens")
    output = first_count(row, "completion_tokens")
    if shape == ANTHROPIC:
        return TokenClasses(total, read, written, None, output), True
    return from_inclusive(total, read, written, None, output)


READER = Reader(
    name=NAME,
    title="Helicone request exports",
    semantics="from the kept answer, the provider's own meaning; else prompt_tokens includes "
    "the cache except for Anthropic",
    places=_places,
    claims=_claims,
    read=_read,
)
