"""One HTTP exchange as a capture keeps it (a HAR entry, a mitmproxy flow), made into an
`AuditRequest`: only exchanges with one of the four API shapes' paths count; the request body
is kept as sent, the usage comes from the answer (answers.py), and no credential is kept.

Session: Claude Code names its session in the `x-claude-code-session-id` header and an
OpenAI-shaped harness may send a `prompt_cache_key`; either, where present, is the session
(the key is what OpenAI routes the cache by, so requests under one key share a cache). Any
other request belongs to one session per capture file: a capture usually records one run.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ctxconf.userfiles.limits import LimitError, parse_json

from ..record import AuditRequest, Place, Problem, Problems, TokenClasses
from .answers import PROVIDERS, gemini_model, read_answer, shape_of_url
from .base import MAX_DOCUMENT_BYTES

# Headers never kept, whatever they hold; and any whose name says it carries a secret.
_CREDENTIAL_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "cookie", "set-cookie"}
)
_SECRET_NAME = re.compile(r"key|token|secret|password|auth|cookie|session-token", re.IGNORECASE)
# A value that is a credential whatever its header's name.
_SECRET_VALUE = re.compile(r"^\s*(bearer|basic)\s|^\s*(sk-|sk_|AIza)", re.IGNORECASE)
SESSION_HEADER = "x-claude-code-session-id"


@dataclass(frozen=True)
class Exchange:
    """One request and its answer as a capture keeps them (texts already decoded)."""

    url: str
    request_headers: tuple[tuple[str, str], ...]
    request_text: str | None
    status: int | None
    response_headers: tuple[tuple[str, str], ...]
    response_text: str | None
    time: datetime | None


def safe_headers(headers: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """`headers` without any that carries, or may carry, a credential."""
    return tuple(
        (name, value)
        for name, value in headers
        if name.lower() not in _CREDENTIAL_HEADERS
        and not _SECRET_NAME.search(name)
        and not _SECRET_VALUE.search(value)
    )


def safe_url(url: str) -> str:
    """`url` without query parameters that may be credentials (Gemini's `?key=`)."""
    parts = urlsplit(url)
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    kept = [(k, v) for k, v in kept if not _SECRET_NAME.search(k)]
    return urlunsplit(parts._replace(query=urlencode(kept), fragment=""))


def decoded(raw: bytes, encoding: str | None) -> bytes | None:
    """A body as sent, its `content-encoding` undone where it is gzip or deflate (bounded);
    None for an encoding not undone here."""
    name = (encoding or "identity").strip().lower()
    if name in ("", "identity"):
        return raw
    if name not in ("gzip", "x-gzip", "deflate"):
        return None
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 32)  # gzip or zlib header, told apart
    try:
        out = inflater.decompress(raw, MAX_DOCUMENT_BYTES)
    except zlib.error:
        return None
    return None if inflater.unconsumed_tail else out


def audit_request(
    exchange: Exchange, *, source: str, place: Place, file_session: str, problems: Problems
) -> AuditRequest | None:
    """The exchange as a request of the audit, or None where it is not an API request."""
    shape = shape_of_url(exchange.url)
    if shape is None:
        return None
    body = _request_body(exchange.request_text, place, problems)
    answer = read_answer(shape, exchange.response_text) if exchange.response_text else None
    tokens = answer.tokens if answer and answer.tokens else TokenClasses(None, None, None, None)
    extra: dict[str, Any] = {"url": safe_url(exchange.url)}
    if answer is not None and not answer.consistent:
        extra["input_meaning"] = "exclusive: the input was smaller than its cache counts"
    return AuditRequest(
        source=source,
        session=_session(exchange.request_headers, body) or file_session,
        place=place,
        tokens=tokens,
        time=exchange.time,
        request_id=_header(exchange.response_headers, "request-id", "x-request-id")
        or (answer.response_id if answer else None),
        model=_model(shape, exchange.url, body) or (answer.model if answer else None),
        provider=PROVIDERS[shape],
        body=body,
        shape=shape,
        headers=safe_headers(exchange.request_headers),
        diagnostics=answer.diagnostics if answer else None,
        status=exchange.status,
        extra=extra,
    )


def _request_body(text: str | None, place: Place, problems: Problems) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        value = parse_json(text)
    except (LimitError, json.JSONDecodeError) as e:
        problems(Problem(place, f"the request body is not JSON ({e}): kept without it"))
        return None
    return value if isinstance(value, dict) else None


def _header(headers: tuple[tuple[str, str], ...], *names: str) -> str | None:
    for wanted in names:
        for name, value in headers:
            if name.lower() == wanted and value:
                return value
    return None


def _session(headers: tuple[tuple[str, str], ...], body: dict[str, Any] | None) -> str | None:
    named = _header(headers, SESSION_HEADER)
    if named:
        return named
    key = body.get("prompt_cache_key") if body else None
    return f"prompt_cache_key:{key}" if isinstance(key, str) and key else None


def _model(shape: str, url: str, body: dict[str, Any] | None) -> str | None:
    model = body.get("model") if body else None
    if isinstance(model, str) and model:
        return model
    return gemini_model(url) if shape == "gemini" else None
