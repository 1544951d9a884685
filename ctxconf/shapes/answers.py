"""What every API shape's answers share: the reply the mock gives (a text or one tool call), the
simulated token counts it reports, and the events of a stream. Each shape's module (`shapes/`)
writes them in its own body, events and usage fields."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MODEL = "mock-model"
TEXT_DELTA_CHARS = 40


@dataclass(frozen=True)
class Reply:
    """A text answer, or a call of `tool` with `arguments` (the call's id is `call_id`)."""

    text: str = ""
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    call_id: str = ""


@dataclass(frozen=True)
class Tokens:
    """The simulated count of a request: its input, how much of it was read from the cache,
    the output, and how much was written to the cache (of it, for an hour)."""

    input_total: int
    cached: int
    output: int
    written: int = 0
    written_1h: int = 0


@dataclass(frozen=True)
class Event:
    data: dict[str, Any] | str  # "[DONE]" for Chat Completions' end
    name: str | None = None


def chunks(text: str) -> list[str]:
    """A text in the pieces a stream sends it in (one empty piece for an empty text)."""
    return [text[i : i + TEXT_DELTA_CHARS] for i in range(0, len(text), TEXT_DELTA_CHARS)] or [""]


def arguments_json(reply: Reply) -> str:
    # Compact, as models emit them (and JSON.stringify writes them): a harness that parses a
    # call's arguments and writes them back must not differ from the mock's bytes by a space.
    return json.dumps(reply.arguments or {}, separators=(",", ":"), ensure_ascii=False)


def encode(event: Event) -> bytes:
    data = event.data if isinstance(event.data, str) else json.dumps(event.data)
    head = f"event: {event.name}\n" if event.name else ""
    return f"{head}data: {data}\n\n".encode()


__all__ = ["MODEL", "Event", "Reply", "Tokens", "arguments_json", "chunks", "encode"]
