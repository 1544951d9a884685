"""What an API answer says of its request's tokens, for every reader that keeps answers (HAR,
flow files, gateway exports): one place that knows each shape's usage object, in a JSON body
or in SSE text, and what its "input" means.

- `anthropic`: `usage.input_tokens` excludes the cache; reads are
  `cache_read_input_tokens`, writes `cache_creation.{ephemeral_5m,ephemeral_1h}_input_tokens`
  where the split is given, else `cache_creation_input_tokens` as five-minute writes. Streamed,
  `message_start` carries the input side and each `message_delta` repeats figures cumulatively,
  so a later non-null figure replaces the earlier one, never adds to it.
- `openai-chat`: `prompt_tokens` includes `prompt_tokens_details.cached_tokens` (reads) and,
  where a router reports it, `prompt_tokens_details.cache_write_tokens`; DeepSeek's
  `prompt_cache_hit_tokens` stands for reads where `cached_tokens` is missing. Streamed, the
  usage is on the last chunk that has one.
- `openai-responses`: `input_tokens` includes `input_tokens_details.cached_tokens` and
  `cache_write_tokens`; streamed, on `response.completed` (or `response.incomplete`).
- `gemini`: `promptTokenCount` includes `cachedContentTokenCount`; Gemini reports no writes
  (N/A). Its JSON leaves a zero count out, so a missing `cachedContentTokenCount` beside a
  `promptTokenCount` is 0 read. Streamed, the last chunk's `usageMetadata` is the request's.

A figure the answer does not carry is N/A (None), never 0, but for Gemini's rule above.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ctxconf.userfiles.limits import LimitError, parse_json

from ..record import TokenClasses
from .base import count, dig, from_inclusive

ANTHROPIC = "anthropic"
CHAT = "openai-chat"
RESPONSES = "openai-responses"
GEMINI = "gemini"

PROVIDERS = {ANTHROPIC: "anthropic", CHAT: "openai", RESPONSES: "openai", GEMINI: "gemini"}

# Each shape's usage once read: the four classes, and whether inclusive figures added up.
Usage = tuple[TokenClasses, bool]


@dataclass(frozen=True)
class Answer:
    """What one answer says of its request (any field it does not carry is None)."""

    tokens: TokenClasses | None
    model: str | None = None
    response_id: str | None = None
    diagnostics: dict[str, Any] | None = None
    # False where inclusive figures did not add up and were read as exclusive.
    consistent: bool = True


def shape_of_url(url: str) -> str | None:
    """The API shape a request's URL is for, or None for any other exchange (a token count,
    a model list, telemetry)."""
    path = urlsplit(url).path.rstrip("/")
    if path.endswith("/v1/messages"):
        return ANTHROPIC
    if path.endswith("/chat/completions"):
        return CHAT
    if path.endswith("/v1/responses"):
        return RESPONSES
    if path.endswith((":generateContent", ":streamGenerateContent")):
        return GEMINI
    return None


def gemini_model(url: str) -> str | None:
    """Gemini names the model in the path (`…/models/<model>:generateContent`), not the body."""
    found = re.search(r"/models/([^/:]+):", urlsplit(url).path)
    return found.group(1) if found else None


def read_answer(shape: str, text: str) -> Answer | None:
    """The answer in `text` (a JSON body, or SSE), or None where it holds no usage of the
    shape (an error body, a cut stream, something else)."""
    if _is_sse(text):
        return _from_events(shape, list(sse_events(text)))
    try:
        value = parse_json(text)
    except (LimitError, json.JSONDecodeError):
        return None
    if shape == GEMINI and isinstance(value, list):
        # A Gemini stream without `alt=sse` is one JSON array of chunks.
        return _from_events(shape, [(None, item) for item in value])
    return _from_body(shape, value) if isinstance(value, dict) else None


def usage_classes(shape: str, usage: Any) -> Usage | None:
    """A usage object of `shape` (Gemini's `usageMetadata`) in four classes."""
    if not isinstance(usage, dict):
        return None
    if shape == ANTHROPIC:
        return _anthropic(usage), True
    if shape == CHAT:
        return _chat(usage)
    if shape == RESPONSES:
        return _responses(usage)
    if shape == GEMINI:
        return _gemini(usage)
    return None


def _is_sse(text: str) -> bool:
    return text.lstrip().startswith(("event:", "data:", ":"))


def sse_events(text: str) -> Iterator[tuple[str | None, Any]]:
    """Each event of an SSE text: its name and its data parsed as JSON (events are split on
    blank lines, never on how the bytes arrived; data that is not JSON is passed over)."""
    for block in re.split(r"\r?\n\r?\n", text):
        name: str | None = None
        data: list[str] = []
        for line in block.splitlines():
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        payload = "\n".join(data).strip()
        if not payload or payload == "[DONE]":
            continue
        try:
            yield name, parse_json(payload)
        except (LimitError, json.JSONDecodeError):
            continue


def _from_body(shape: str, body: dict[str, Any]) -> Answer | None:
    usage = body.get("usageMetadata") if shape == GEMINI else body.get("usage")
    read = usage_classes(shape, usage)
    if read is None:
        return None
    diagnostics = body.get("prompt_cache_diagnostics" if shape == RESPONSES else "diagnostics")
    model = body.get("modelVersion" if shape == GEMINI else "model")
    answer_id = body.get("responseId" if shape == GEMINI else "id")
    return Answer(
        tokens=read[0],
        model=model if isinstance(model, str) else None,
        response_id=answer_id if isinstance(answer_id, str) else None,
        diagnostics=diagnostics if isinstance(diagnostics, dict) else None,
        consistent=read[1],
    )


def _from_events(shape: str, events: list[tuple[str | None, Any]]) -> Answer | None:
    if shape == ANTHROPIC:
        return _anthropic_stream(events)
    if shape == RESPONSES:
        return _responses_stream(events)
    # Chat and Gemini: the last chunk that carries a usage object is the whole request's.
    key = "usageMetadata" if shape == GEMINI else "usage"
    last: dict[str, Any] | None = None
    model: Any = None
    for _, data in events:
        if not isinstance(data, dict):
            continue
        model = data.get("modelVersion" if shape == GEMINI else "model") or model
        if isinstance(data.get(key), dict):
            last = data
    if last is None:
        return None
    answer = _from_body(shape, last)
    if answer is not None and answer.model is None and isinstance(model, str):
        return Answer(answer.tokens, model, answer.response_id, None, answer.consistent)
    return answer


def _anthropic_stream(events: list[tuple[str | None, Any]]) -> Answer | None:
    message: dict[str, Any] | None = None
    usage: dict[str, Any] = {}
    for _, data in events:
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "message_start" and isinstance(data.get("message"), dict):
            message = data["message"]
            usage = dict(message.get("usage") or {})
        elif kind == "message_delta" and isinstance(data.get("usage"), dict):
            # Cumulative, and interim figures may be null: only a given figure replaces.
            usage.update({k: v for k, v in data["usage"].items() if v is not None})
    if message is None:
        return None
    return _from_body(ANTHROPIC, {**message, "usage": usage})


def _responses_stream(events: list[tuple[str | None, Any]]) -> Answer | None:
    for _, data in reversed(events):
        if not isinstance(data, dict):
            continue
        if data.get("type") in ("response.completed", "response.incomplete", "response.failed"):
            response = data.get("response")
            if isinstance(response, dict):
                return _from_body(RESPONSES, response)
    return None


def _anthropic(usage: dict[str, Any]) -> TokenClasses:
    split = usage.get("cache_creation")
    five = dig(split, "ephemeral_5m_input_tokens")
    hour = dig(split, "ephemeral_1h_input_tokens")
    if count(five) is not None or count(hour) is not None:
        written_5m, written_1h = count(five), count(hour)
    else:
        written_5m, written_1h = count(usage.get("cache_creation_input_tokens")), None
    return TokenClasses(
        uncached=count(usage.get("input_tokens")),
        read=count(usage.get("cache_read_input_tokens")),
        written_5m=written_5m,
        written_1h=written_1h,
        output=count(usage.get("output_tokens")),
    )


def _chat(usage: dict[str, Any]) -> Usage:
    details = usage.get("prompt_tokens_details")
    details = details if isinstance(details, dict) else {}
    read = count(details.get("cached_tokens"))
    if read is None:
        read = count(usage.get("prompt_cache_hit_tokens"))
    return from_inclusive(
        count(usage.get("prompt_tokens")),
        read,
        count(details.get("cache_write_tokens")),
        None,
        count(usage.get("completion_tokens")),
    )


def _responses(usage: dict[str, Any]) -> Usage:
    details = usage.get("input_tokens_details")
    details = details if isinstance(details, dict) else {}
    return from_inclusive(
        count(usage.get("input_tokens")),
        count(details.get("cached_tokens")),
        count(details.get("cache_write_tokens")),
        None,
        count(usage.get("output_tokens")),
    )


def _gemini(usage: dict[str, Any]) -> Usage:
    total = count(usage.get("promptTokenCount"))
    read = count(usage.get("cachedContentTokenCount"))
    if read is None and total is not None:
        read = 0
    parts = [count(usage.get(k)) for k in ("candidatesTokenCount", "thoughtsTokenCount")]
    given = [p for p in parts if p is not None]
    output = sum(given) if given else None
    return from_inclusive(total, read, None, None, output)
