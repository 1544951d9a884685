"""Claude Code transcripts: `~/.claude/projects/<project>/<sessionId>.jsonl` (also under
`~/.config/claude/projects/`), subagents in `<sessionId>/subagents/agent-<id>.jsonl` (older
builds: `agent-<hash>.jsonl` beside the session, its lines `isSidechain: true`).

Token meaning: Anthropic's, exclusive. `message.usage.input_tokens` counts only the input read
neither from nor into the cache; `cache_read_input_tokens` and `cache_creation_input_tokens`
come on top of it. The four classes:

- uncached   = `input_tokens`
- read       = `cache_read_input_tokens`
- written_5m = `cache_creation.ephemeral_5m_input_tokens`
- written_1h = `cache_creation.ephemeral_1h_input_tokens`; where that split is absent, all of
  `cache_creation_input_tokens` is one class: 1h if the line's `promptCacheRequested` says `1h`,
  else 5m (the API's default lifetime)
- output     = `output_tokens`

A field the usage lacks is N/A (None). Claude Code writes one `assistant` line per content block,
each repeating the request's usage: lines are one request when they share `requestId` or
`message.id` (either may be null), and each figure is the largest its lines give, since a
streaming placeholder line may carry `input_tokens` 0 or 1 (ccusage #866). Where 0 or 1 is all
there is while the request read or wrote at least PLACEHOLDER_CACHE_TOKENS, the request's
`extra["input_placeholder"]` says the uncached count may be such a placeholder.

Builds that keep the request side (`api-request-shape`, `api-request-blob`, `api-request`) have
each request's body rebuilt: system and tools from the shape, messages as the previous request of
the same `querySource` kept them (`keep`) and then the `tail` blobs, found by hash; an assistant
message's hash is that of `{role, content}` made of its lines' blocks. The marks are put back from
`cacheControl`'s paths. The shape leaves out `system[0]` (the billing header line), so a body
holds what the transcript keeps of the request, not all of it.

A compaction's own requests are not read: none has an `assistant` line (2.1.332: the summary
request and the one after it, `/compact` played in the session), and their usage is only in
the `cost-state` line's `modelUsage[model]`, a running total of the whole process (input,
output, read, written five minutes and an hour), written once, as the process's last line. Less
the `assistant` lines it covers, it gives those requests' sum, not each one's figures: two
requests between the same two snapshots (and one snapshot here) cannot be told apart, and the
transcript keeps no other figure of them, so none is made up. They are missing from the audit
and from its totals; the first request after the compaction, which reads nothing and writes the
new prefix afresh, is read, marked `compaction`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..record import AuditRequest, Lifetime, Place, Problems, TokenClasses
from .base import Reader, count, dig, json_lines, text_head, timestamp

NAME = "claude-code"
# Reads and writes at least this large make a lone 0 or 1 input count look like a placeholder.
PLACEHOLDER_CACHE_TOKENS = 1024
# Line types only Claude Code writes; a line with `parentUuid` is one too.
_OWN_TYPES = frozenset(
    {
        "file-history-snapshot",
        "queue-operation",
        "api-request-shape",
        "api-request-blob",
        "api-request",
        "cost-state",
    }
)
_USAGE_FIELDS = (
    "input_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "ephemeral_5m_input_tokens",
    "ephemeral_1h_input_tokens",
    "output_tokens",
)


@dataclass
class _Request:
    """One API request as its block lines are read, before it becomes an AuditRequest."""

    line: int
    first: dict[str, Any]
    boundary: list[str]
    figures: dict[str, int] = field(default_factory=dict)
    inputs: set[int] = field(default_factory=set)
    has_usage: bool = False
    blocks: dict[int, Any] = field(default_factory=dict)
    diagnostics: dict[str, Any] | None = None


@dataclass
class _Transcript:
    """What one file holds besides its requests: the request side, and the harness's tally."""

    requests: list[_Request] = field(default_factory=list)
    by_id: dict[tuple[str, str], _Request] = field(default_factory=dict)
    shapes: dict[str, dict[str, Any]] = field(default_factory=dict)
    blobs: dict[str, Any] = field(default_factory=dict)
    sent: list[dict[str, Any]] = field(default_factory=list)  # the `api-request` lines
    total_cost: float | None = None
    pending: list[str] = field(default_factory=list)  # what happened before the next request
    session_id: str | None = None


def places(home: Path) -> list[Path]:
    return [home / ".claude" / "projects", home / ".config" / "claude" / "projects"]


def claims(path: Path, head: bytes) -> bool:
    if path.suffix != ".jsonl":
        return False
    text = text_head(head)
    if text.startswith('{"parentUuid":'):  # how every message line starts, however long
        return True
    for line in text.splitlines()[:20]:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if not isinstance(value, dict) or "projectHash" in value or "payload" in value:
            return False
        if "parentUuid" in value or value.get("type") in _OWN_TYPES:
            return True
        if value.get("type") == "summary" and "leafUuid" in value:
            return True
    return False


def read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    transcript = _Transcript()
    for number, record in json_lines(path, problems):
        _take(transcript, number, record)
    bodies = _rebuild_bodies(transcript)
    sidechain = _is_sidechain(path, transcript)
    previous: dict[str, Any] = {}
    for index, request in enumerate(transcript.requests):
        last = index == len(transcript.requests) - 1
        yield _audit_request(path, request, transcript, bodies, sidechain, previous, last=last)
        previous = request.first


def _take(transcript: _Transcript, number: int, record: dict[str, Any]) -> None:
    kind = record.get("type")
    session = record.get("sessionId")
    if isinstance(session, str):
        if transcript.session_id not in (None, session):
            transcript.pending.append("resume")
        transcript.session_id = session
    if (kind == "system" and record.get("subtype") == "compact_boundary") or record.get(
        "isCompactSummary"
    ) is True:
        if "compaction" not in transcript.pending:
            transcript.pending.append("compaction")
    elif kind == "assistant":
        _take_assistant(transcript, number, record)
    elif kind == "api-request-shape" and isinstance(record.get("shapeHash"), str):
        transcript.shapes[record["shapeHash"]] = record
    elif kind == "api-request-blob" and isinstance(record.get("hash"), str):
        transcript.blobs[record["hash"]] = record.get("message")
    elif kind == "api-request":
        transcript.sent.append(record)
    elif kind == "cost-state":
        cost = record.get("totalCostUSD")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            transcript.total_cost = float(cost)


def _take_assistant(transcript: _Transcript, number: int, record: dict[str, Any]) -> None:
    message = record.get("message")
    if not isinstance(message, dict) or message.get("model") == "<synthetic>":
        return  # a line Claude Code made itself (an error shown as a reply), not a request
    keys = [
        (kind, value)
        for kind, value in (("request", record.get("requestId")), ("message", message.get("id")))
        if isinstance(value, str) and value
    ]
    request = next((transcript.by_id[k] for k in keys if k in transcript.by_id), None)
    if request is None:
        request = _Request(number, record, transcript.pending)
        transcript.pending = []
        transcript.requests.append(request)
    transcript.by_id.update((k, request) for k in keys)
    _merge_usage(request, message.get("usage"))
    if isinstance(message.get("diagnostics"), dict):
        request.diagnostics = message["diagnostics"]
    content = message.get("content")
    position = count(record.get("apiBlockIndex"))
    for offset, block in enumerate(content if isinstance(content, list) else []):
        at = position + offset if position is not None else len(request.blocks)
        request.blocks.setdefault(at, block)


def _merge_usage(request: _Request, usage: Any) -> None:
    if not isinstance(usage, dict):
        return
    request.has_usage = True
    split = usage.get("cache_creation")
    for name in _USAGE_FIELDS:
        source = split if name.startswith("ephemeral_") else usage
        value = count(dig(source, name))
        if value is None:
            continue
        request.figures[name] = max(request.figures.get(name, value), value)
        if name == "input_tokens":
            request.inputs.add(value)


def _lifetime(record: dict[str, Any]) -> Lifetime | None:
    asked = record.get("promptCacheRequested")
    return "1h" if asked == "1h" else "5m" if asked == "5m" else None


def _tokens(request: _Request) -> TokenClasses:
    if not request.has_usage:
        return TokenClasses(None, None, None, None)
    got = request.figures.get
    five, hour = got("ephemeral_5m_input_tokens"), got("ephemeral_1h_input_tokens")
    if five is None and hour is None:
        created = got("cache_creation_input_tokens")
        other = None if created is None else 0  # one lifetime took it all
        five, hour = (other, created) if _lifetime(request.first) == "1h" else (created, other)
    elif five is None or hour is None:
        five, hour = five or 0, hour or 0  # the split is there: the class it leaves out is empty
    return TokenClasses(
        got("input_tokens"), got("cache_read_input_tokens"), five, hour, got("output_tokens")
    )


def _is_sidechain(path: Path, transcript: _Transcript) -> bool:
    if path.parent.name == "subagents" or path.stem.startswith("agent-"):
        return True
    return any(r.first.get("isSidechain") is True for r in transcript.requests[:1])


def _parent_session(path: Path, transcript: _Transcript) -> str | None:
    if transcript.session_id is not None:
        return transcript.session_id
    return path.parent.parent.name if path.parent.name == "subagents" else None


def _changes(request: _Request, previous: dict[str, Any]) -> list[str]:
    found = list(request.boundary)
    for label, now, before in (
        ("version", request.first.get("version"), previous.get("version")),
        ("model", dig(request.first, "message", "model"), dig(previous, "message", "model")),
    ):
        if isinstance(now, str) and isinstance(before, str) and now != before:
            found.append(f"{label} {before} → {now}")
    return found


def _audit_request(
    path: Path,
    request: _Request,
    transcript: _Transcript,
    bodies: dict[str, _Body],
    sidechain: bool,
    previous: dict[str, Any],
    *,
    last: bool,
) -> AuditRequest:
    first = request.first
    tokens = _tokens(request)
    extra = _extra(request, tokens)
    if sidechain:
        extra["parent_session"] = _parent_session(path, transcript)
    if last and transcript.total_cost is not None:
        extra["harness_total_cost_usd"] = transcript.total_cost
    built = bodies.get(str(first.get("requestRef")))
    if built is not None and built.note:
        extra["body_note"] = built.note
    boundary = _changes(request, previous)
    request_id = first.get("requestId")
    return AuditRequest(
        source=NAME,
        session=path.stem,  # <sessionId>.jsonl, or a subagent's own agent-<id>.jsonl
        place=Place(path, request.line),
        tokens=tokens,
        time=timestamp(first.get("timestamp")),
        request_id=request_id if isinstance(request_id, str) else None,
        model=_text(dig(first, "message", "model")),
        provider="anthropic",
        harness=NAME,
        harness_version=_text(first.get("version")),
        project=_text(first.get("cwd")),
        lifetime=_lifetime(first),
        boundary="; ".join(boundary) or None,
        sidechain=sidechain,
        body=built.body if built is not None else None,
        body_complete=False,  # system[0], the billing line, is never in the transcript
        shape="anthropic" if built is not None and built.body is not None else None,
        diagnostics=request.diagnostics,
        extra=extra,
    )


def _extra(request: _Request, tokens: TokenClasses) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    message_id = dig(request.first, "message", "id")
    if isinstance(message_id, str):
        extra["message_id"] = message_id
    if len(request.inputs) > 1:
        extra["input_values"] = sorted(request.inputs)
    cached = (tokens.read or 0) + (tokens.written or 0)
    if request.inputs and max(request.inputs) <= 1 and cached >= PLACEHOLDER_CACHE_TOKENS:
        extra["input_placeholder"] = True
    asked = request.first.get("requestedModel")
    if isinstance(asked, str) and asked != dig(request.first, "message", "model"):
        extra["requested_model"] = asked
    return extra


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# The request side, rebuilt.


@dataclass(frozen=True)
class _Body:
    body: dict[str, Any] | None
    note: str | None = None  # why there is no body, or what it lacks


def _digest(message: Any) -> str:
    text = json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _rebuild_bodies(transcript: _Transcript) -> dict[str, _Body]:
    if not transcript.sent:
        return {}
    known = dict(transcript.blobs)
    for request in transcript.requests:
        if request.blocks:
            message = {
                "role": "assistant",
                "content": [request.blocks[i] for i in sorted(request.blocks)],
            }
            known[_digest(message)] = message
    marks = {str(r.first.get("requestRef")): _lifetime(r.first) for r in transcript.requests}
    chains: dict[str, list[Any] | None] = {}
    by_id: dict[str, list[Any] | None] = {}
    bodies: dict[str, _Body] = {}
    for sent in transcript.sent:
        chain = str(sent.get("querySource") or "main")
        # `base` names the request whose messages it keeps (2.1.332); without it, the previous
        # request of its query source.
        base = sent.get("base")
        before = (
            by_id.get(base) if isinstance(base, str) and base in by_id else chains.get(chain, [])
        )
        messages, missing = _messages(sent, before, known)
        chains[chain] = messages
        by_id[str(sent.get("id"))] = messages
        bodies[str(sent.get("id"))] = _body(sent, messages, missing, transcript, marks)
    return bodies


def _messages(
    sent: dict[str, Any], before: list[Any] | None, known: dict[str, Any]
) -> tuple[list[Any] | None, str | None]:
    keep, tail = count(sent.get("keep")), sent.get("tail")
    if keep is None or not isinstance(tail, list):
        return None, "the request line has no keep or tail"
    if keep and (before is None or keep > len(before)):
        return None, "it keeps messages of an earlier request that could not be rebuilt"
    absent = [h for h in tail if not isinstance(h, str) or known.get(h) is None]
    if absent:
        return None, f"{len(absent)} of its messages are in no blob of the file"
    return [*(before or [])[:keep], *(known[h] for h in tail)], None


def _body(
    sent: dict[str, Any],
    messages: list[Any] | None,
    missing: str | None,
    transcript: _Transcript,
    marks: dict[str, Lifetime | None],
) -> _Body:
    shape = transcript.shapes.get(str(sent.get("shapeHash")))
    if messages is None or shape is None:
        return _Body(None, missing or "its shape (system and tools) is not in the file")
    params = sent.get("params")
    body: dict[str, Any] = {}
    if isinstance(params, dict):
        body.update((k, v) for k, v in params.items() if k != "betas")  # betas are headers
    # 2.1.332 keeps the system blocks and tools under the line's `shape`.
    nested = shape.get("shape")
    fields: dict[str, Any] = nested if isinstance(nested, dict) else shape
    for part in ("system", "tools"):
        if part in fields:
            body[part] = fields[part]
    body["messages"] = messages
    paths = sent.get("cacheControl")
    if isinstance(paths, list) and paths:
        if not _place_marks(body, paths, marks.get(str(sent.get("id")))):
            return _Body(body, "its cache_control marks could not be placed from cacheControl")
    return _Body(body, "system[0] (the billing header) is not kept in the transcript")


_SEGMENT = re.compile(r"[^.\[\]/]+")


def _segments(path: Any) -> list[str | int] | None:
    """A mark's path as steps: a list of keys and indexes, or a text like `messages.3.content.0`,
    `messages[3].content[0]` or `/messages/3/content/0`."""
    if isinstance(path, dict):
        path = path.get("path")
    if isinstance(path, str):
        path = _SEGMENT.findall(path)
    if not isinstance(path, list) or not path:
        return None
    steps: list[str | int] = []
    for step in path:
        if isinstance(step, int) and not isinstance(step, bool):
            steps.append(step)
        elif isinstance(step, str):
            steps.append(int(step) if step.isdigit() else step)
        else:
            return None
    return steps


def _place_marks(body: dict[str, Any], paths: list[Any], lifetime: Lifetime | None) -> bool:
    """Put a mark at each path, copying what it passes through (the messages are shared with
    the other requests' bodies); False, with nothing placed, where any path leads nowhere."""
    steps = [_segments(p) for p in paths]
    if any(s is None or not _reaches(body, s) for s in steps):
        return False
    for path, found in zip(paths, steps, strict=True):
        assert found is not None
        given = path.get("value") if isinstance(path, dict) else None
        if isinstance(given, dict):
            mark = dict(given)  # the mark as it was sent: its type and lifetime
        else:
            ttl = path.get("ttl") if isinstance(path, dict) else lifetime
            mark = {"type": "ephemeral", **({"ttl": "1h"} if ttl == "1h" else {})}
        _copy_along(body, found)["cache_control"] = mark
    return True


def _reaches(body: dict[str, Any], steps: list[str | int]) -> bool:
    found = dig(body, *steps)
    return isinstance(found, dict)


def _copy_along(body: dict[str, Any], steps: list[str | int]) -> dict[str, Any]:
    here: Any = body
    for step in steps:
        child = here[step]
        copied = dict(child) if isinstance(child, dict) else list(child)
        here[step] = copied
        here = copied
    result: dict[str, Any] = here
    return result


READER = Reader(
    name=NAME,
    title="Claude Code transcripts",
    semantics=(
        "exclusive (Anthropic): uncached = input_tokens, read = cache_read_input_tokens, "
        "written 5m/1h = cache_creation.ephemeral_5m/1h_input_tokens (without the split, "
        "cache_creation_input_tokens at the lifetime promptCacheRequested names, else 5m)"
    ),
    places=places,
    claims=claims,
    read=read,
)
