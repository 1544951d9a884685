"""pi's sessions (`~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl`), as pi-mono's
coding agent writes them (its `docs/session.md`): a header line `{type: "session", id,
timestamp, cwd, …}`, then entries, each assistant message a `{type: "message", message: {role:
"assistant", provider, model, usage, …}}` line; `compaction` entries mark a compaction.

One assistant message is one request. Its `usage.{input, output, cacheRead, cacheWrite,
cost.total}` are pi-ai's own normalized figures, and pi-ai's `input` excludes the cache for
every provider (it subtracts OpenAI's cached tokens from `prompt_tokens`, and its total is
input + output + cacheRead + cacheWrite): uncached = `input`, read = `cacheRead`, written
(five-minute: no lifetime is kept) = `cacheWrite`; `cost.total` is pi's own dollar figure.

Confirmed from pi-mono's session document and its ai package's usage type; the entry tree of
later versions (`id`/`parentId`, branches kept in one file) is read line by line, every
assistant message being a request that was sent whichever branch it is on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..record import AuditRequest, Place, Problems, TokenClasses
from .base import Reader, amount, count, dig, first_text, json_lines, text_head, timestamp

NAME = "pi"


def _claims(path: Path, head: bytes) -> bool:
    first = text_head(head).lstrip().split("\n", 1)[0]
    try:
        header = json.loads(first)
    except ValueError:
        return path.suffix == ".jsonl" and _in_sessions(path)
    return (
        isinstance(header, dict)
        and header.get("type") == "session"
        and "cwd" in header
        and "id" in header
    )


def _in_sessions(path: Path) -> bool:
    text = path.as_posix()
    return "/.pi/agent/sessions/" in text


def _places(home: Path) -> list[Path]:
    return [home / ".pi" / "agent" / "sessions"]


def _read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    header: dict[str, Any] = {}
    boundary: str | None = None
    for number, entry in json_lines(path, problems):
        kind = entry.get("type")
        if kind == "session":
            header = entry
        elif kind == "compaction":
            boundary = "compaction"
        elif kind == "message" and dig(entry, "message", "role") == "assistant":
            found = _request(path, number, header, entry, boundary)
            if found is not None:
                boundary = None
                yield found


def _request(
    path: Path, number: int, header: dict[str, Any], entry: dict[str, Any], boundary: str | None
) -> AuditRequest | None:
    message = entry["message"]
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None  # an aborted message with no usage sent nothing we can count
    return AuditRequest(
        source=NAME,
        session=first_text(header, "id") or path.stem,
        place=Place(path, number),
        tokens=TokenClasses(
            uncached=count(usage.get("input")),
            read=count(usage.get("cacheRead")),
            written_5m=count(usage.get("cacheWrite")),
            written_1h=None,
            output=count(usage.get("output")),
        ),
        time=timestamp(entry.get("timestamp")) or timestamp(message.get("timestamp")),
        request_id=first_text(message, "responseId") or first_text(entry, "id"),
        model=first_text(message, "model"),
        provider=first_text(message, "provider"),
        harness="pi",
        project=first_text(header, "cwd"),
        cost_usd=amount(dig(usage, "cost", "total")),
        boundary=boundary,
        extra={"api": message["api"]} if isinstance(message.get("api"), str) else {},
    )


READER = Reader(
    name=NAME,
    title="pi sessions",
    semantics="input excludes the cache (pi-ai's normalized usage): uncached = input, "
    "read = cacheRead, written = cacheWrite",
    places=_places,
    claims=_claims,
    read=_read,
)
