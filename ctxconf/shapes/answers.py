"""What every API shape's answers share: the reply the mock gives (a text, calls, or a text
then calls), the simulated token counts it reports, the answer as a whole (its id, the model it
names, the provider's diagnostics where asked), and the events of a stream. Each shape's module
(`shapes/`) writes them in its own body, events and usage fields."""

from __future__ import annotations

import json
import secrets
import string
from dataclasses import dataclass
from typing import Any

from .reasoning import Thought

# The model an answer names when its request named none, and the one `…/models` lists.
MODEL = "mock-model"
TEXT_DELTA_CHARS = 40
BASE62 = string.digits + string.ascii_letters


@dataclass(frozen=True)
class Call:
    """One tool call of an answer: the tool, its arguments and its id."""

    tool: str
    arguments: dict[str, Any]
    call_id: str


@dataclass(frozen=True)
class Reply:
    """A text, a call of `tool` with `arguments` (its id `call_id`), or both: the text first,
    as a model says what it is about to do. `more` holds the further calls of an answer that
    makes several at once."""

    text: str = ""
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    call_id: str = ""
    more: tuple[Call, ...] = ()

    @property
    def calls(self) -> tuple[Call, ...]:
        first = () if self.tool is None else (Call(self.tool, self.arguments or {}, self.call_id),)
        return first + self.more


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
class Answer:
    """One answer as a shape writes it: the reply and its counts, the answer's id in the
    provider's form, when it was made, the model it names, and the provider's cache
    diagnostics. `diagnosed` says whether the answer carries the diagnostics field at all: a
    provider sends it only when the request asked, and then `null` is an answer too."""

    reply: Reply
    tokens: Tokens
    id: str
    created: int
    model: str = MODEL
    diagnostics: dict[str, Any] | None = None
    diagnosed: bool = False
    # The model's reasoning before the reply, where the request asked for it.
    thought: Thought | None = None
    # What the provider dropped of the body before reading it (Anthropic's
    # `input_transformations`); None: it says nothing.
    transformations: tuple[dict[str, Any], ...] | None = None


@dataclass(frozen=True)
class Event:
    data: dict[str, Any] | str  # "[DONE]" for Chat Completions' end
    name: str | None = None


def token(length: int, alphabet: str = BASE62) -> str:
    """A random run of `length` characters: ids are unique across sessions, so an id one
    session's mock gave is unknown to another's, as another workspace's is to a provider."""
    return "".join(secrets.choice(alphabet) for _ in range(length))


def chunks(text: str) -> list[str]:
    """A text in the pieces a stream sends it in (one empty piece for an empty text)."""
    return [text[i : i + TEXT_DELTA_CHARS] for i in range(0, len(text), TEXT_DELTA_CHARS)] or [""]


def arguments_json(call: Call) -> str:
    # Compact, as models emit them (and JSON.stringify writes them): a harness that parses a
    # call's arguments and writes them back must not differ from the mock's bytes by a space.
    return json.dumps(call.arguments, separators=(",", ":"), ensure_ascii=False)


def encode(event: Event) -> bytes:
    data = event.data if isinstance(event.data, str) else json.dumps(event.data)
    head = f"event: {event.name}\n" if event.name else ""
    return f"{head}data: {data}\n\n".encode()


__all__ = [
    "BASE62",
    "MODEL",
    "Answer",
    "Call",
    "Event",
    "Reply",
    "Tokens",
    "arguments_json",
    "chunks",
    "encode",
    "token",
]
