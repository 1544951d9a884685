"""An API shape as one record: the paths it is spoken on, how its requests are read (for the
mock and the checks, and for the cache audit), how its answers and their usage are written, how
its API refuses a body whose tool results do not follow their calls, and which providers' cache
rules apply to it. `registry.py` holds the registered ones, checked."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal

from ctxconf.cache.units import Parts

from .answers import Event, Reply, Tokens
from .wire import Request

# What a POST to one of the shape's paths asks: an answer, a streamed answer whatever the body
# says (Gemini's `:streamGenerateContent`), or a count of the input's tokens.
Asked = Literal["answer", "stream", "count"]
ASKED: tuple[Asked, ...] = ("answer", "stream", "count")
Routes = tuple[tuple[str, Asked], ...]  # (how a path ends, what a POST to it asks)

ParseRequest = Callable[[Mapping[str, Any], bool], Request]  # (body, streamed by its path)
ReadCache = Callable[[Mapping[str, Any]], Parts]
WriteBody = Callable[[Reply, Tokens, str, int], dict[str, Any]]  # (reply, tokens, id, created)
WriteEvents = Callable[[Reply, Tokens, str, int, bool], list[Event]]  # + include_usage
WriteCount = Callable[[int], dict[str, Any]]


@dataclass(frozen=True)
class Refusal:
    """A body the API will not take, answered as it answers it: the status, the error body and
    its message."""

    status: int
    body: Mapping[str, Any]
    message: str


# The API's refusal of a body whose tool results do not follow their calls; None: it takes it.
Refuse = Callable[[Mapping[str, Any]], Refusal | None]


@dataclass(frozen=True)
class ApiShape:
    name: str  # as a profile's `api:` names it
    title: str  # as the docs and pages name it
    routes: Routes
    providers: tuple[str, ...]  # the providers whose cache rules apply; the first by default
    parse: ParseRequest
    read_cache: ReadCache
    body: WriteBody
    events: WriteEvents
    refuse: Refuse
    count: WriteCount | None = None  # the answer to a count route; None: the shape has none


def problems(shape: ApiShape, providers: Iterable[str]) -> list[str]:
    """What a shape lacks or gets wrong, each said in words; [] for a whole one."""
    found = []
    if not shape.name or not shape.title:
        found.append("it has no name or no title")
    for part in fields(ApiShape):
        value = getattr(shape, part.name)
        if part.name in ("parse", "read_cache", "body", "events", "refuse") and not callable(value):
            found.append(f"its {part.name} is not a function")
    asked = [kind for _, kind in shape.routes]
    if "answer" not in asked:
        found.append("no route answers it")
    if any(kind not in ASKED or not ending for ending, kind in shape.routes):
        found.append(f"a route is not a path's ending with one of {', '.join(ASKED)}")
    if ("count" in asked) != callable(shape.count):
        found.append("a count route needs a count answer, and a count answer a route")
    known = set(providers)
    if not shape.providers:
        found.append("no provider's cache rules apply to it")
    found += [
        f"its provider {name!r} is not registered" for name in shape.providers if name not in known
    ]
    return found


__all__ = ["ASKED", "ApiShape", "Asked", "Refusal", "Refuse", "Routes", "problems"]
