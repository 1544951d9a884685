"""Codex rollouts: `${CODEX_HOME:-~/.codex}/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl` and
`archived_sessions/`, lines `{timestamp, type, payload}`.

Token meaning: OpenAI's, inclusive. A `token_count` event's `info.last_token_usage` is one
response's usage; its `input_tokens` counts everything sent, `cached_input_tokens` (read from the
cache) and, in newer builds, `cache_write_input_tokens` (written to it) being parts of it. The
four classes:

- uncached   = input_tokens - cached_input_tokens - cache_write_input_tokens
- read       = cached_input_tokens
- written_5m = cache_write_input_tokens; None (N/A) in builds without the field: OpenAI bills no
  write of its own, and a build that does not say cannot be read as writing nothing
- written_1h = None (OpenAI names no second lifetime)
- output     = output_tokens (reasoning_output_tokens is part of it, kept in `extra`)

`info.total_token_usage` is the session's running sum: an event whose sum has not moved is the
same response told again and is passed over; where `last_token_usage` is missing the change of
the sum is the response's; where both are there and differ, `extra["total_mismatch"]` keeps both.

The request side is kept: `session_meta.base_instructions`, `dynamic_tools` and every
`response_item` (the history Codex sends again). Each request's body is rebuilt as the Responses
API takes it: `{model, instructions, input: the items before its reply, tools: the dynamic
tools}`. Codex's built-in tools are not stored, so `tools` holds only the dynamic ones; after a
`compacted` line without `replacement_history`, or a rollback, the history is not known and the
bodies stop.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..record import AuditRequest, Place, Problem, Problems, TokenClasses
from .base import Reader, count, dig, json_lines, text_head, timestamp

NAME = "codex"
_LINE_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
_LINE_START = re.compile(
    r'\{"timestamp":"[^"]*","type":"(?:session_meta|turn_context|response_item|event_msg|compacted)",'
    r'"payload":\{'
)
# A turn_context this long after the line before it is taken as the session resumed.
RESUME_GAP_SECONDS = 3600
# Items the model writes: the reply of the request before them, not its input.
_REPLY_ITEMS = frozenset(
    {
        "reasoning",
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "image_generation_call",
        "tool_search_call",
    }
)
_FIGURES = (
    "input_tokens",
    "cached_input_tokens",
    "cache_write_input_tokens",
    "output_tokens",
    "reasoning_output_tokens",
)


@dataclass
class _Rollout:
    session: str | None = None
    version: str | None = None
    project: str | None = None
    model: str | None = None
    instructions: str | None = None
    tools: list[Any] | None = None
    items: list[Any] | None = field(default_factory=list)  # None: the history is not known
    reply_from: int | None = None  # where the latest run of reply items starts
    total: dict[str, int] | None = None
    pending: list[str] = field(default_factory=list)
    last_time: datetime | None = None


def places(home: Path) -> list[Path]:
    found = [home / ".codex" / "sessions", home / ".codex" / "archived_sessions"]
    override = os.environ.get("CODEX_HOME")
    if override:
        found += [Path(override) / "sessions", Path(override) / "archived_sessions"]
    return found


def claims(path: Path, head: bytes) -> bool:
    if path.suffix != ".jsonl":
        return False
    text = text_head(head)
    if _LINE_START.match(text):  # a first line longer than the head still starts so
        return True
    for line in text.splitlines()[:5]:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        return (
            isinstance(value, dict)
            and value.get("type") in _LINE_TYPES
            and isinstance(value.get("payload"), dict)
        )
    return False


def read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    rollout = _Rollout()
    for number, record in json_lines(path, problems):
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        when = timestamp(record.get("timestamp"))
        found = _take(rollout, path, number, record.get("type"), payload, when, problems)
        if found is not None:
            yield found
        rollout.last_time = when or rollout.last_time


def _take(
    rollout: _Rollout,
    path: Path,
    number: int,
    kind: Any,
    payload: dict[str, Any],
    when: datetime | None,
    problems: Problems,
) -> AuditRequest | None:
    if kind == "session_meta":
        _take_meta(rollout, payload)
    elif kind == "turn_context":
        _take_turn(rollout, payload, when)
    elif kind == "response_item":
        _take_item(rollout, payload)
    elif kind == "compacted":
        replaced = payload.get("replacement_history")
        rollout.items = list(replaced) if isinstance(replaced, list) else None
        rollout.reply_from = None
        _mark(rollout, "compaction")
    elif kind == "event_msg":
        event = payload.get("type")
        if event == "context_compacted":
            _mark(rollout, "compaction")
        elif event == "thread_rolled_back":
            rollout.items, rollout.reply_from = None, None
            _mark(rollout, "rollback")
        elif event == "token_count":
            return _token_count(rollout, path, number, payload, when, problems)
    return None


def _mark(rollout: _Rollout, what: str) -> None:
    if what not in rollout.pending:
        rollout.pending.append(what)


def _take_meta(rollout: _Rollout, payload: dict[str, Any]) -> None:
    if rollout.session is not None:
        _mark(rollout, "resume")  # the first session_meta names the session
    else:
        rollout.session = _text(payload.get("id"))
    rollout.version = _text(payload.get("cli_version")) or rollout.version
    rollout.project = _text(payload.get("cwd")) or rollout.project
    base = payload.get("base_instructions")
    text = base.get("text") if isinstance(base, dict) else base
    rollout.instructions = _text(text) or rollout.instructions
    if isinstance(payload.get("dynamic_tools"), list):
        rollout.tools = payload["dynamic_tools"]


def _take_turn(rollout: _Rollout, payload: dict[str, Any], when: datetime | None) -> None:
    model = _text(payload.get("model"))
    if model is not None and rollout.model is not None and model != rollout.model:
        _mark(rollout, f"model {rollout.model} → {model}")
    rollout.model = model or rollout.model
    rollout.project = _text(payload.get("cwd")) or rollout.project
    if when is not None and rollout.last_time is not None:
        if (when - rollout.last_time).total_seconds() >= RESUME_GAP_SECONDS:
            _mark(rollout, "resume")


def _take_item(rollout: _Rollout, item: dict[str, Any]) -> None:
    if rollout.items is None:
        return
    kind = item.get("type")
    reply = kind in _REPLY_ITEMS or (kind == "message" and item.get("role") == "assistant")
    if reply and rollout.reply_from is None:
        rollout.reply_from = len(rollout.items)
    elif not reply:
        rollout.reply_from = None
    rollout.items.append(item)


def _usage(value: Any) -> dict[str, int] | None:
    if not isinstance(value, dict):
        return None
    found = {name: n for name in _FIGURES if (n := count(value.get(name))) is not None}
    return found or None


def _token_count(
    rollout: _Rollout,
    path: Path,
    number: int,
    payload: dict[str, Any],
    when: datetime | None,
    problems: Problems,
) -> AuditRequest | None:
    info = payload.get("info")
    last, total = _usage(dig(info, "last_token_usage")), _usage(dig(info, "total_token_usage"))
    if total is not None and total == rollout.total:
        return None  # the same response told again
    delta = _delta(total, rollout.total)
    rollout.total = total or rollout.total
    usage = last or delta
    if usage is None:
        return None  # an event of rate limits only
    extra: dict[str, Any] = {}
    if last is not None and delta is not None:
        shared = [k for k in _FIGURES if k in last and k in delta]
        if any(last[k] != delta[k] for k in shared):
            extra["total_mismatch"] = {"last_token_usage": last, "total_delta": delta}
    tokens = _tokens(usage, path, number, problems)
    if "reasoning_output_tokens" in usage:
        extra["reasoning_output_tokens"] = usage["reasoning_output_tokens"]
    body = _body(rollout)
    boundary, rollout.pending = "; ".join(rollout.pending) or None, []
    return AuditRequest(
        source=NAME,
        session=rollout.session or path.stem,
        place=Place(path, number),
        tokens=tokens,
        time=when,
        model=rollout.model,
        provider="openai",
        harness=NAME,
        harness_version=rollout.version,
        project=rollout.project,
        boundary=boundary,
        body=body,
        body_complete=False,  # the built-in tools' schemas are not in the rollout
        shape="openai-responses" if body is not None else None,
        extra=extra,
    )


def _delta(total: dict[str, int] | None, before: dict[str, int] | None) -> dict[str, int] | None:
    if total is None:
        return None
    earlier = before or {}
    return {k: v - earlier.get(k, 0) for k, v in total.items()}


def _tokens(usage: dict[str, int], path: Path, number: int, problems: Problems) -> TokenClasses:
    sent, read, written = (
        usage.get("input_tokens"),
        usage.get("cached_input_tokens"),
        usage.get("cache_write_input_tokens"),
    )
    uncached = None if sent is None else sent - (read or 0) - (written or 0)
    if uncached is not None and uncached < 0:
        problems(
            Problem(
                Place(path, number),
                f"cached and written ({(read or 0) + (written or 0):,}) exceed input "
                f"({sent:,}): the uncached count is left N/A",
            )
        )
        uncached = None
    return TokenClasses(uncached, read, written, None, usage.get("output_tokens"))


def _body(rollout: _Rollout) -> dict[str, Any] | None:
    if rollout.items is None or rollout.model is None:
        return None
    cut = rollout.reply_from if rollout.reply_from is not None else len(rollout.items)
    body: dict[str, Any] = {"model": rollout.model}
    if rollout.instructions is not None:
        body["instructions"] = rollout.instructions
    body["input"] = rollout.items[:cut]
    if rollout.tools:
        body["tools"] = rollout.tools
    return body


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


READER = Reader(
    name=NAME,
    title="Codex rollouts",
    semantics=(
        "inclusive (OpenAI): uncached = input_tokens - cached_input_tokens - "
        "cache_write_input_tokens, read = cached_input_tokens, written_5m = "
        "cache_write_input_tokens (N/A where the build has no such field), written_1h N/A"
    ),
    places=places,
    claims=claims,
    read=read,
)
