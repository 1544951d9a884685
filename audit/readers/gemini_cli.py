"""Gemini CLI: the chats `~/.gemini/tmp/<project_hash>/chats/*.json` (a whole conversation) and
`*.jsonl` (0.61.0: a header line, one line per message write, `$set` lines updating the header,
`$rewindTo` lines; a message is written again under the same `id` when it changes, so the last
write of each id is the message), subagents' chats in `chats/<parent session>/`; and the local
telemetry file (`telemetry.outfile`: OpenTelemetry log records, one a line or pretty-printed one
after another).

Token meaning: Gemini's, inclusive. A chat message's `tokens.input` (`promptTokenCount`) counts
everything sent, `tokens.cached` (`cachedContentTokenCount`) the part read from the implicit
cache; telemetry's `input_token_count` and `cached_content_token_count` are the same two. The
four classes:

- uncached   = input - cached (all of input where no cached figure is given)
- read       = cached
- written_5m, written_1h = None (N/A): the implicit cache writes nothing that is billed or told
- output     = output + thoughts (both billed as output; `thoughts` is not in `output`)

`tool` (`toolUsePromptTokenCount`, the prompt of the API's own tools) is none of the harness's
input: it is kept in `extra`. A telemetry `api_request` event's `request_text` goes into the next
`api_response` of the same `prompt_id` as `extra["request_text"]`, and is the body only where it
is a whole request (an object with `contents`).

A `$rewindTo` line takes the messages after its point out of the conversation, not out of what
was sent and billed: the audit keeps them, and marks the next request `rewind`.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict, deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ctxconf.userfiles.limits import LimitError, parse_json

from ..record import AuditRequest, Place, Problem, Problems, TokenClasses
from .base import (
    HEAD_BYTES,
    Reader,
    count,
    dig,
    json_document,
    json_lines,
    json_objects,
    text_head,
    timestamp,
)

NAME = "gemini-cli"
_RESPONSE = "gemini_cli.api_response"
_REQUEST = "gemini_cli.api_request"


def places(home: Path) -> list[Path]:
    gemini = home / ".gemini"
    return [gemini / "tmp", gemini / "telemetry.log", gemini / "telemetry.jsonl"]


def claims(path: Path, head: bytes) -> bool:
    return _kind(path, head) is not None


def _kind(path: Path, head: bytes) -> str | None:
    """`chat-document`, `chat-lines` or `telemetry`, from the file's first bytes."""
    text = text_head(head).lstrip()
    if not text.startswith("{"):
        return None
    first = text.splitlines()[0].strip()
    if first == "{":  # pretty-printed: a legacy chat, or telemetry objects
        if all(f'"{key}"' in text for key in ("sessionId", "projectHash", "messages")):
            return "chat-document" if path.suffix == ".json" else None
        return "telemetry" if _is_telemetry_head(text) else None
    try:
        value = json.loads(first)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    if "sessionId" in value and "projectHash" in value:
        return "chat-document" if "messages" in value else "chat-lines"
    if "$set" in value or "$rewindTo" in value:
        return "chat-lines"
    return "telemetry" if _event_name(value).startswith("gemini_cli.") else None


# A span Gemini CLI names as its own: the agent's name in the GenAI attributes.
_AGENT = re.compile(r'"gen_ai\.agent\.name"\s*:\s*"gemini-cli"')


def _is_telemetry_head(text: str) -> bool:
    """Pretty-printed telemetry: a log record (`hrTime`, a `gemini_cli.` event) within the first
    bytes, or a span of Gemini CLI's own (`_spanContext` and the agent's name). The file often
    opens with an `llm_call` span whose system instructions and tool definitions fill the first
    64 KB before any log record (0.61.0: the first at byte 240,588)."""
    if "gemini_cli." in text or '"hrTime"' in text:
        return True
    return '"_spanContext"' in text and _AGENT.search(text) is not None


def read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    try:
        with path.open("rb") as file:
            head = file.read(HEAD_BYTES)
    except OSError as e:
        problems(Problem(Place(path), f"could not be read: {e.strerror or e}"))
        return
    kind = _kind(path, head)
    if kind == "telemetry":
        yield from _read_telemetry(path, problems)
    elif kind == "chat-document":
        yield from _read_chat_document(path, problems)
    elif kind == "chat-lines" or head == b"":
        yield from _read_chat_lines(path, problems)
    else:
        problems(Problem(Place(path), "neither a Gemini CLI chat nor its telemetry"))


# Chats.


@dataclass
class _Message:
    place: Place
    record: dict[str, Any]
    boundary: list[str]


@dataclass
class _Chat:
    header: dict[str, Any] = field(default_factory=dict)
    messages: dict[str, _Message] = field(default_factory=dict)
    pending: list[str] = field(default_factory=list)


def _read_chat_lines(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    chat = _Chat()
    for number, record in json_lines(path, problems):
        _take_chat_line(chat, Place(path, number), record)
    yield from _chat_requests(path, chat, problems)


def _take_chat_line(chat: _Chat, place: Place, record: dict[str, Any]) -> None:
    if isinstance(record.get("$rewindTo"), str):
        chat.pending.append("rewind")
    elif isinstance(record.get("id"), str):
        _take_message(chat, place, record)
    elif isinstance(record.get("$set"), dict):
        update = record["$set"]
        before = chat.header.get("sessionId")
        if "sessionId" in update and before is not None and update["sessionId"] != before:
            chat.pending.append("resume")
        chat.header.update(update)
    elif "sessionId" in record and "projectHash" in record:
        chat.header.update(record)


def _take_message(chat: _Chat, place: Place, record: dict[str, Any]) -> None:
    known = chat.messages.get(record["id"])
    if known is not None:  # written again: the last write is the message
        known.place, known.record = place, record
    elif record.get("type") == "gemini":
        chat.messages[record["id"]] = _Message(place, record, chat.pending)
        chat.pending = []


def _read_chat_document(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    document = json_document(path, problems)
    if not isinstance(document, dict):
        if document is not None:
            problems(Problem(Place(path), "not a chat: the document is not an object"))
        return
    chat = _Chat(header=document)
    messages = document.get("messages")
    for index, record in enumerate(messages if isinstance(messages, list) else []):
        if isinstance(record, dict) and isinstance(record.get("id"), str):
            _take_message(chat, Place(path, pointer=f"/messages/{index}"), record)
    yield from _chat_requests(path, chat, problems)


def _chat_requests(path: Path, chat: _Chat, problems: Problems) -> Iterator[AuditRequest]:
    header = chat.header
    sidechain = header.get("kind") == "subagent"
    previous: str | None = None
    for message in chat.messages.values():
        record, place = message.record, message.place
        model = _text(record.get("model"))
        boundary = list(message.boundary)
        if model and previous and model != previous:
            boundary.append(f"model {previous} → {model}")
        previous = model or previous
        tokens, extra = _chat_tokens(record.get("tokens"), place, problems)
        extra["message_id"] = record["id"]
        if sidechain and path.parent.name != "chats":
            extra["parent_session"] = path.parent.name
        yield AuditRequest(
            source=NAME,
            session=_text(header.get("sessionId")) or path.stem,
            place=place,
            tokens=tokens,
            time=timestamp(record.get("timestamp")),
            model=model,
            provider="gemini",
            harness=NAME,
            project=_text(header.get("projectHash")),
            boundary="; ".join(boundary) or None,
            sidechain=sidechain,
            extra=extra,
        )


def _chat_tokens(
    tokens: Any, place: Place, problems: Problems
) -> tuple[TokenClasses, dict[str, Any]]:
    if not isinstance(tokens, dict):
        return TokenClasses(None, None, None, None), {}
    return _classes(
        count(tokens.get("input")),
        count(tokens.get("cached")),
        count(tokens.get("output")),
        count(tokens.get("thoughts")),
        count(tokens.get("tool")),
        place,
        problems,
    )


def _classes(
    sent: int | None,
    cached: int | None,
    output: int | None,
    thoughts: int | None,
    tool: int | None,
    place: Place,
    problems: Problems,
) -> tuple[TokenClasses, dict[str, Any]]:
    uncached = None if sent is None else sent - (cached or 0)
    if uncached is not None and uncached < 0:
        problems(Problem(place, f"cached ({cached:,}) exceeds input ({sent:,}): uncached N/A"))
        uncached = None
    extra: dict[str, Any] = {}
    if thoughts is not None:
        extra["thoughts_tokens"] = thoughts
    if tool is not None:
        extra["tool_tokens"] = tool
    billed_output = None if output is None else output + (thoughts or 0)
    return TokenClasses(uncached, cached, None, None, billed_output), extra


# Telemetry.


def _attributes(record: dict[str, Any]) -> dict[str, Any]:
    found = record.get("attributes")
    return found if isinstance(found, dict) else record


def _event_name(record: dict[str, Any]) -> str:
    for value in (_attributes(record).get("event.name"), record.get("event_name")):
        if isinstance(value, str):
            return value
    return ""


def _read_telemetry(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    asked: defaultdict[str, deque[str]] = defaultdict(deque)  # request texts by prompt_id
    previous: str | None = None
    for number, record in json_objects(path, problems):
        name, attributes = _event_name(record), _attributes(record)
        prompt = str(attributes.get("prompt_id"))
        if name == _REQUEST and isinstance(attributes.get("request_text"), str):
            asked[prompt].append(attributes["request_text"])
        elif name == _RESPONSE:
            text = asked[prompt].popleft() if asked[prompt] else None
            found = _telemetry_request(path, number, record, text, previous, problems)
            previous = found.model or previous
            yield found


def _telemetry_request(
    path: Path,
    number: int,
    record: dict[str, Any],
    text: str | None,
    previous: str | None,
    problems: Problems,
) -> AuditRequest:
    attributes = _attributes(record)
    place = Place(path, number)
    figures = [
        count(attributes.get(f"{name}_token_count"))
        for name in ("input", "cached_content", "output", "thoughts", "tool")
    ]
    sent, cached, output, thoughts, tool = figures
    tokens, extra = _classes(sent, cached, output, thoughts, tool, place, problems)
    for key in ("prompt_id", "duration_ms"):
        if key in attributes:
            extra[key] = attributes[key]
    body = None
    if text is not None:
        extra["request_text"] = text
        body = _request_body(text)
    model = _text(attributes.get("model"))
    status = count(attributes.get("status_code"))
    return AuditRequest(
        source=NAME,
        session=_text(attributes.get("session.id")) or path.stem,
        place=place,
        tokens=tokens,
        time=_telemetry_time(record),
        model=model,
        provider="gemini",
        harness=NAME,
        boundary=f"model {previous} → {model}"
        if model and previous and model != previous
        else None,
        body=body,
        shape="gemini" if body is not None else None,
        status=status,
        extra=extra,
    )


def _request_body(text: str) -> dict[str, Any] | None:
    try:
        value = parse_json(text)
    except (LimitError, ValueError):
        return None
    return value if isinstance(value, dict) and isinstance(value.get("contents"), list) else None


def _telemetry_time(record: dict[str, Any]) -> datetime | None:
    when = timestamp(_attributes(record).get("event.timestamp")) or timestamp(
        record.get("timestamp")
    )
    seconds = dig(record, "hrTime", 0)
    if when is None and isinstance(seconds, int):
        when = timestamp(seconds + (count(dig(record, "hrTime", 1)) or 0) / 1e9)
    return when


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


READER = Reader(
    name=NAME,
    title="Gemini CLI chats and telemetry",
    semantics=(
        "inclusive (Gemini): uncached = input - cached, read = cached, written N/A (the "
        "implicit cache bills no write), output = output + thoughts"
    ),
    places=places,
    claims=claims,
    read=read,
)
