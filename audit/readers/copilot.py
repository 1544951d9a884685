"""GitHub Copilot CLI: its session events (`~/.copilot/session-state/<id>/events.jsonl`) and
its OpenTelemetry file export (`~/.copilot/otel/*.jsonl`, `COPILOT_OTEL_EXPORTER_TYPE=file`).

Events: one line per event, `{type, id, timestamp, parentId, data}`; each `assistant.usage`
event is one request, `data.{model, inputTokens, outputTokens, cacheReadTokens,
cacheWriteTokens, cost, duration}`. Copilot's `inputTokens` is "the total covering all kinds
of input, including cached" (a maintainer, github/copilot-sdk #1160). The cache writes are
taken to be inside it too, for that reason ("all kinds of input"): uncached = input - read -
written, with writes as five-minute ones (no lifetime is given). Where a line's input is
smaller than its cache counts, it cannot be that meaning and is read as exclusive, and the
request says so in `extra`. `data.cost` is Copilot's premium-request charge (a multiple of a
request), not dollars: it is kept in `extra`, not as `cost_usd`. The session is the folder's
id; `session.start` gives the version and the working folder.

OTel export: one JSON object per line with a `type` (`span`, `log`, `metric`) and flat
`attributes` in the GenAI conventions (input includes the cache; see otel.py). Each `chat`
span is one request; an inference-details log event is one where no span had its response id.
Per-turn and per-agent sums (`copilot_chat.agent.turn`, `invoke_agent`) are passed over.
Session from `gen_ai.conversation.id`/`session.id`, else one per file.

Not confirmed from Copilot's own code: whether `cacheWriteTokens` is inside `inputTokens`
(the decision above), the names of compaction and resume events (any event type naming a
compaction, and `session.resume`, mark the next request's boundary), and the OTel file's
layout beyond the lines third-party readers parse.
"""

from __future__ import annotations

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
    for number, event in chain(first, rest):
        kind = event.get("type")
        data = event.get("data") if isinstance(event.get("data"), dict) else {}
        if kind == "session.start":
            started = data
            session = first_text(data, "sessionId") or session
        elif kind == "session.resume" or (isinstance(kind, str) and "compaction" in kind):
            boundary = "resume" if kind == "session.resume" else "compaction"
        elif kind == "assistant.usage":
            yield _usage(Place(path, number), session, event, data, started, boundary)
            boundary = None


def _usage(
    place: Place,
    session: str,
    event: dict[str, Any],
    data: dict[str, Any],
    started: dict[str, Any],
    boundary: str | None,
) -> AuditRequest:
    tokens, inclusive = from_inclusive(
        count(data.get("inputTokens")),
        count(data.get("cacheReadTokens")),
        count(data.get("cacheWriteTokens")),
        None,
        count(data.get("outputTokens")),
    )
    extra: dict[str, Any] = {"premium_requests": data.get("cost"), "duration": data.get("duration")}
    if not inclusive:
        extra["input_meaning"] = "exclusive: the input was smaller than its cache counts"
    return AuditRequest(
        source=NAME,
        session=session,
        place=place,
        tokens=tokens,
        time=timestamp(event.get("timestamp")),
        request_id=first_text(data, "apiCallId", "providerCallId") or first_text(event, "id"),
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
        extra = {} if found[1] else {"input_meaning": "exclusive: input below its cache counts"}
        yield AuditRequest(
            source=NAME,
            session=first_text(attrs, *SESSION) or path.name,
            place=Place(path, number),
            tokens=found[0],
            time=otel_time(record.get("startTime") or record.get("endTime"))
            or otel_time(record.get("timeUnixNano")),
            request_id=answer,
            model=first_text(attrs, *MODEL),
            provider=first_text(attrs, "gen_ai.provider.name"),
            harness="copilot-cli",
            extra=extra,
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
