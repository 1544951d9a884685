"""GitHub Copilot CLI: its session events (`~/.copilot/session-state/<id>/events.jsonl`) and
its OpenTelemetry file export (`~/.copilot/otel/*.jsonl`, `COPILOT_OTEL_EXPORTER_TYPE=file`).

Events: one line per event, `{type, id, timestamp, parentId, data}`. One request is either an
`assistant.usage` event, `data.{model, inputTokens, outputTokens, cacheReadTokens,
cacheWriteTokens, cost, duration}`, or (1.0.102, which writes no `assistant.usage`) a
`session.usage_record` event, the same figures in `data.usage` with `apiCallId` and
`accounting.{usageId, sequence}` (the sequence runs on across a resume). A request named twice
(an `apiCallId` or `usageId` already read in the file) is read once. `cacheDetailsReported:
false` says the cache figures are not the provider's: read and written are then N/A. The
`session.shutdown` event's `modelMetrics[model].usage` is the session's running total so far (a
resumed process's shutdown counts the first process's requests again), never one request: it
is not read. Copilot's `inputTokens` is "the total covering all kinds of input, including
cached" (a maintainer, github/copilot-sdk #1160). The cache writes are taken to be inside it
too, for that reason ("all kinds of input"): uncached = input - read - written, with writes as
five-minute ones (no lifetime is given). Where a line's input is smaller than its cache counts,
it cannot be that meaning and is read as exclusive, and the request says so in `extra`. The
cost is Copilot's premium-request charge (a multiple of a request), not dollars: it is kept in
`extra`, not as `cost_usd`. The session is the folder's id; `session.start` gives the version
and the working folder.

OTel export: one JSON object per line with a `type` (`span`, `log`, `metric`) and flat
`attributes` in the GenAI conventions (input includes the cache; see otel.py). Each `chat`
span is one request; an inference-details log event is one where no span had its response id.
Per-turn and per-agent sums (`copilot_chat.agent.turn`, `invoke_agent`) are passed over.
Session from `gen_ai.conversation.id`/`session.id`, else one per file. Copilot (1.0.102) leaves
`gen_ai.usage.cache_read.input_tokens` out of a span when nothing was read, rather than writing
0: within one file, where any call of the same provider and Copilot version
(`service.version`) carries that attribute, the exporter reports reads and a call without it
read 0 (and says so in `extra["read_from_absence"]`). Where no call of theirs carries it the
read stays N/A: the provider may report no cache at all. No span carries a cache write: written
is N/A.

Not confirmed from Copilot's own code: whether `cacheWriteTokens` is inside `inputTokens`
(the decision above; every write in the records at hand is 0), the names of compaction events
(any event type naming a compaction, and `session.resume`, mark the next request's boundary),
and the OTel file's layout beyond the lines third-party readers parse and 1.0.102's own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

from ..record import AuditRequest, Place, Problems
from .base import Reader, count, dig, first_text, from_inclusive, json_lines, text_head, timestamp
from .otel import MODEL, SESSION, attributes, genai_tokens, otel_time

NAME = "copilot"
_INFERENCE_EVENT = "gen_ai.client.inference.operation.details"


def _claims(path: Path, head: bytes) -> bool:
    first = text_head(head).lstrip().split("\n", 1)[0].replace(" ", "")
    if path.name == "events.jsonl" and "session-state" in path.parts:
        return True
    if first.startswith("{") and '"type":"session.' in first and '"data":' in first:
        return True
    return (first.startswith("{") and _is_otel_line(first)) or _in_otel_folder(path)


def _is_otel_line(first: str) -> bool:
    marks = ('"type":"span"', '"type":"log"', '"type":"metric"')
    return any(mark in first for mark in marks) and ('"attributes"' in first or "metric" in first)


def _in_otel_folder(path: Path) -> bool:
    return path.suffix == ".jsonl" and path.parent.name == "otel" and ".copilot" in path.parts


def _places(home: Path) -> list[Path]:
    return [home / ".copilot" / "session-state", home / ".copilot" / "otel"]


def _read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    lines = json_lines(path, problems)
    for number, line in lines:
        if isinstance(line.get("data"), dict) and "attributes" not in line:
            yield from _events(path, [(number, line)], lines)
        else:
            yield from _otel(path, [(number, line)], lines)
        return


def _events(
    path: Path, first: list[tuple[int, dict[str, Any]]], rest: Iterator[tuple[int, Any]]
) -> Iterator[AuditRequest]:
    session = path.parent.name if path.name == "events.jsonl" else path.stem
    started: dict[str, Any] = {}
    boundary: str | None = None
    seen: set[str] = set()
    for number, event in chain(first, rest):
        kind = event.get("type")
        data = event.get("data") if isinstance(event.get("data"), dict) else {}
        if kind == "session.start":
            started = data
            session = first_text(data, "sessionId") or session
        elif kind == "session.resume" or (isinstance(kind, str) and "compaction" in kind):
            boundary = "resume" if kind == "session.resume" else "compaction"
        elif kind in _USAGE_EVENTS:
            usage = data.get("usage") if kind == "session.usage_record" else data
            if not isinstance(usage, dict):
                continue
            ids = {_text(usage.get("apiCallId")), _text(dig(usage, "accounting", "usageId"))}
            ids.discard(None)
            if ids & seen:
                continue
            seen.update(i for i in ids if i is not None)
            yield _usage(Place(path, number), session, event, usage, started, boundary)
            boundary = None


_USAGE_EVENTS = ("assistant.usage", "session.usage_record")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _usage(
    place: Place,
    session: str,
    event: dict[str, Any],
    data: dict[str, Any],
    started: dict[str, Any],
    boundary: str | None,
) -> AuditRequest:
    reported = data.get("cacheDetailsReported") is not False
    tokens, inclusive = from_inclusive(
        count(data.get("inputTokens")),
        count(data.get("cacheReadTokens")) if reported else None,
        count(data.get("cacheWriteTokens")) if reported else None,
        None,
        count(data.get("outputTokens")),
    )
    extra: dict[str, Any] = {
        "premium_requests": data.get("cost"),
        "duration": data.get("duration"),
        "sequence": dig(data, "accounting", "sequence"),
        "initiator": data.get("initiator"),
    }
    if not inclusive:
        extra["input_meaning"] = "exclusive: the input was smaller than its cache counts"
    return AuditRequest(
        source=NAME,
        session=session,
        place=place,
        tokens=tokens,
        time=timestamp(event.get("timestamp")),
        request_id=first_text(data, "apiCallId", "providerCallId")
        or _text(dig(data, "accounting", "usageId"))
        or first_text(event, "id"),
        model=first_text(data, "model"),
        harness="copilot-cli",
        harness_version=first_text(started, "copilotVersion"),
        project=first_text(dig(started, "context") or {}, "cwd"),
        boundary=boundary,
        extra={k: v for k, v in extra.items() if v is not None},
    )


def _otel(
    path: Path, first: list[tuple[int, dict[str, Any]]], rest: Iterator[tuple[int, Any]]
) -> Iterator[AuditRequest]:
    seen: set[str] = set()
    calls: list[tuple[AuditRequest, tuple[str | None, str | None]]] = []
    reporting: set[tuple[str | None, str | None]] = set()  # who writes the read attribute
    for number, record in chain(first, rest):
        attrs = attributes(record.get("attributes"))
        if not _is_call(record, attrs):
            continue
        found = genai_tokens(attrs)
        answer = first_text(attrs, "gen_ai.response.id")
        if found is None or (answer is not None and answer in seen):
            continue
        if answer is not None:
            seen.add(answer)
        provider = first_text(attrs, "gen_ai.provider.name")
        version = first_text(attributes(dig(record, "resource", "attributes")), "service.version")
        if found[0].read is not None:
            reporting.add((provider, version))
        extra = {} if found[1] else {"input_meaning": "exclusive: input below its cache counts"}
        request = AuditRequest(
            source=NAME,
            session=first_text(attrs, *SESSION) or path.name,
            place=Place(path, number),
            tokens=found[0],
            time=otel_time(record.get("startTime") or record.get("endTime"))
            or otel_time(record.get("timeUnixNano")),
            request_id=answer,
            model=first_text(attrs, *MODEL),
            provider=provider,
            harness="copilot-cli",
            harness_version=version,
            extra=extra,
        )
        calls.append((request, (provider, version)))
    for request, key in calls:
        yield _read_from_absence(request) if key in reporting else request


def _read_from_absence(request: AuditRequest) -> AuditRequest:
    """A call without the read attribute, from an exporter that writes it when there is one:
    it read nothing (the uncached are unchanged, the whole input less what was written)."""
    if request.tokens.read is not None or request.tokens.uncached is None:
        return request
    return dataclasses.replace(
        request,
        tokens=dataclasses.replace(request.tokens, read=0),
        extra={**request.extra, "read_from_absence": True},
    )


def _is_call(record: dict[str, Any], attrs: dict[str, Any]) -> bool:
    """A span of one model call, or the log event that details one."""
    if record.get("type") == "span":
        name = record.get("name")
        return attrs.get("gen_ai.operation.name") == "chat" or (
            isinstance(name, str) and name.startswith("chat ")
        )
    if record.get("type") == "log":
        return _INFERENCE_EVENT in (attrs.get("event.name"), record.get("body"))
    return False


READER = Reader(
    name=NAME,
    title="GitHub Copilot CLI sessions and OTel export",
    semantics="input includes cache reads and writes (uncached = input - read - written); "
    "OTel: the GenAI conventions, the same meaning",
    places=_places,
    claims=_claims,
    read=_read,
)
