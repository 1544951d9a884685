"""An API shape as one record: the paths it is spoken on, how its requests are read (for the
mock and the checks, and for the cache audit), how its answers and their usage are written, how
its API names an answer and a request, how it refuses a body whose tool results do not follow
their calls, what a request asks of the provider's cache diagnostics, and which providers' cache
rules apply to it. `registry.py` holds the registered ones, checked."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal

from ctxconf.cache.credentials import Headers
from ctxconf.cache.provider_diagnostics import DiagnosticsAsk
from ctxconf.cache.units import Parts

from .answers import Answer, Event
from .reasoning import ReasoningWay
from .wire import Request

# What a POST to one of the shape's paths asks: an answer, a streamed answer whatever the body
# says (Gemini's `:streamGenerateContent`), or a count of the input's tokens.
Asked = Literal["answer", "stream", "count"]
ASKED: tuple[Asked, ...] = ("answer", "stream", "count")
Routes = tuple[tuple[str, Asked], ...]  # (how a path ends, what a POST to it asks)

ParseRequest = Callable[[Mapping[str, Any], bool], Request]  # (body, streamed by its path)
ReadCache = Callable[[Mapping[str, Any]], Parts]
WriteBody = Callable[[Answer], dict[str, Any]]
WriteEvents = Callable[[Answer, bool], list[Event]]  # (the answer, include_usage)
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
# What a request asks of the provider's cache diagnostics (None: nothing), or the API's refusal
# of a malformed ask.
ReadDiagnostics = Callable[[Mapping[str, Any], Headers], DiagnosticsAsk | Refusal | None]


@dataclass(frozen=True)
class Ids:
    """How the API names its answers and the requests it served: a new answer's id (`msg_…`,
    `chatcmpl-…`), and the response header that carries a request's id with a new one (None:
    the API sends none, and its answer's id is all a client has)."""

    answer: Callable[[], str]
    request_header: str | None = None
    request: Callable[[], str] | None = None


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
    ids: Ids
    count: WriteCount | None = None  # the answer to a count route; None: the shape has none
    diagnostics: ReadDiagnostics | None = None  # None: its API has no cache diagnostics
    reasoning: ReasoningWay | None = None  # None: its answers carry no reasoning


def problems(shape: ApiShape, providers: Iterable[str]) -> list[str]:
    """What a shape lacks or gets wrong, each said in words; [] for a whole one."""
    found = []
    if not shape.name or not shape.title:
        found.append("it has no name or no title")
    for part in fields(ApiShape):
        value = getattr(shape, part.name)
        if part.name in ("parse", "read_cache", "body", "events", "refuse") and not callable(value):
            found.append(f"its {part.name} is not a function")
    if shape.diagnostics is not None and not callable(shape.diagnostics):
        found.append("its diagnostics is not a function")
    way = shape.reasoning
    if way is not None and not (callable(way.asked) and callable(way.sign) and callable(way.check)):
        found.append("its reasoning is not a way of reasoning")
    ids = shape.ids
    if not isinstance(ids, Ids) or not callable(ids.answer):
        found.append("it names no answer's id")
    elif (ids.request_header is None) != (ids.request is None):
        found.append("a request-id header needs its ids, and ids their header")
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


__all__ = [
    "ASKED",
    "ApiShape",
    "Asked",
    "Ids",
    "ReadDiagnostics",
    "Refusal",
    "Refuse",
    "Routes",
    "problems",
]
