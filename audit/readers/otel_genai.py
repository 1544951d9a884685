"""OpenTelemetry GenAI spans and log events as JSON lines: OTLP JSON (each line an export
request, `resourceSpans[].scopeSpans[].spans[]` or `resourceLogs[].scopeLogs[].logRecords[]`,
as a collector's file exporter writes them) and flat exporters (one span or event per line,
its `attributes` an object).

Three meanings of "input", told apart by the record:
- GenAI conventions (any instrumented client): `gen_ai.usage.input_tokens` includes the cache
  reads and writes, so uncached = input - read - written (otel.py lists the names read).
- Claude Code's `claude_code.api_request` event: `input_tokens` excludes the cache, as
  Anthropic's does: uncached = `input_tokens`, read = `cache_read_tokens`, written (5m: the
  event does not split lifetimes) = `cache_creation_tokens`; `cost_usd` is its own figure.
- Gemini CLI's `gemini_cli.api_response` event inside OTLP: `input_token_count` includes
  `cached_content_token_count`; Gemini reports no writes (N/A). Gemini CLI's own local
  telemetry file (not OTLP) is another reader's.

Model from `gen_ai.response.model`/`gen_ai.request.model` (or the event's `model`); session
from `session.id`/`gen_ai.conversation.id`, else one per file. Spans and events without token
figures (tool calls, agent wrappers) are passed over; a span that sums a whole agent run
(`gen_ai.operation.name` = `invoke_agent`) is too, its calls being spans of their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ..record import AuditRequest, Place, Problems, TokenClasses
from .base import (
    Reader,
    amount,
    count,
    first_count,
    first_text,
    from_inclusive,
    json_lines,
    text_head,
)
from .otel import MODEL, SESSION, attributes, genai_tokens, otel_time

NAME = "otel-genai"
CLAUDE_EVENT = "claude_code.api_request"
GEMINI_EVENT = "gemini_cli.api_response"


def _claims(path: Path, head: bytes) -> bool:
    text = text_head(head)
    if '"resourceSpans"' in text or '"resourceLogs"' in text:
        return True
    first = text.lstrip().split("\n", 1)[0]
    if not first.startswith("{") or '"attributes"' not in first:
        return False
    # Copilot CLI's file export marks each line with a `type` (copilot.py reads it); Gemini
    # CLI's flat local telemetry is read by its own reader.
    if '"type":"span"' in first.replace(" ", "") or GEMINI_EVENT in text:
        return False
    return any(mark in text for mark in ("gen_ai.usage.", "llm.token_count.", CLAUDE_EVENT))


def _places(home: Path) -> list[Path]:
    return []  # wherever an exporter was pointed


def _read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    for number, line in json_lines(path, problems):
        for record, resource in _records(line):
            found = _request(record, resource, Place(path, number), path.name)
            if found is not None:
                yield found


def _records(line: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Each span or log record of a line, with its resource's attributes."""
    if "resourceSpans" not in line and "resourceLogs" not in line:
        yield line, {}
        return
    for kind, scopes, items in (
        ("resourceSpans", "scopeSpans", "spans"),
        ("resourceLogs", "scopeLogs", "logRecords"),
    ):
        for resource in line.get(kind) or []:
            if not isinstance(resource, dict):
                continue
            shared = attributes((resource.get("resource") or {}).get("attributes"))
            for scope in resource.get(scopes) or []:
                for item in (scope.get(items) if isinstance(scope, dict) else None) or []:
                    if isinstance(item, dict):
                        yield item, shared


def _request(
    record: dict[str, Any], resource: dict[str, Any], place: Place, file_session: str
) -> AuditRequest | None:
    attrs = {**resource, **attributes(record.get("attributes"))}
    event = _event_name(record, attrs)
    if attrs.get("gen_ai.operation.name") == "invoke_agent":
        return None
    harness: str | None = None
    if event == CLAUDE_EVENT:
        read, harness = (_claude(attrs), True), "claude-code"
    elif event == GEMINI_EVENT:
        read, harness = _gemini(attrs), "gemini-cli"
    else:
        found = genai_tokens(attrs)
        if found is None:
            return None
        read = found
    extra: dict[str, Any] = {"event": event} if event else {}
    if not read[1]:
        extra["input_meaning"] = "exclusive: the input was smaller than its cache counts"
    return AuditRequest(
        source=NAME,
        session=first_text(attrs, *SESSION) or file_session,
        place=place,
        tokens=read[0],
        time=_time(record, attrs),
        request_id=first_text(attrs, "gen_ai.response.id", "request_id"),
        model=first_text(attrs, *MODEL),
        provider=first_text(attrs, "gen_ai.provider.name", "gen_ai.system"),
        harness=harness,
        harness_version=first_text(attrs, "service.version", "app.version"),
        cost_usd=amount(attrs.get("cost_usd")),
        extra=extra,
    )


def _event_name(record: dict[str, Any], attrs: dict[str, Any]) -> str | None:
    body = attributes({"body": record.get("body")}).get("body")
    name = attrs.get("event.name")
    for candidate in (name, body, record.get("name")):
        if candidate in (CLAUDE_EVENT, GEMINI_EVENT):
            return str(candidate)
    # Claude Code names the event `api_request` beside its `claude_code` prefix elsewhere.
    if name == "api_request" and "cache_read_tokens" in attrs:
        return CLAUDE_EVENT
    return name if isinstance(name, str) else None


def _claude(attrs: dict[str, Any]) -> TokenClasses:
    return TokenClasses(
        uncached=count(attrs.get("input_tokens")),
        read=count(attrs.get("cache_read_tokens")),
        written_5m=count(attrs.get("cache_creation_tokens")),
        written_1h=None,
        output=count(attrs.get("output_tokens")),
    )


def _gemini(attrs: dict[str, Any]) -> tuple[TokenClasses, bool]:
    total = count(attrs.get("input_token_count"))
    read = count(attrs.get("cached_content_token_count"))
    given = [
        n
        for n in (
            first_count(attrs, "output_token_count"),
            count(attrs.get("thoughts_token_count")),
        )
        if n is not None
    ]
    return from_inclusive(total, read, None, None, sum(given) if given else None)


def _time(record: dict[str, Any], attrs: dict[str, Any]) -> datetime | None:
    for key in ("startTimeUnixNano", "timeUnixNano", "observedTimeUnixNano", "startTime"):
        found = otel_time(record.get(key))
        if found is not None:
            return found
    return otel_time(attrs.get("event.timestamp"))


READER = Reader(
    name=NAME,
    title="OpenTelemetry GenAI spans and events",
    semantics="GenAI conventions: input includes cache reads and writes (uncached = input - "
    "read - written); Claude Code's api_request event: input excludes them; Gemini CLI's "
    "api_response: input includes the cached",
    places=_places,
    claims=_claims,
    read=_read,
)
