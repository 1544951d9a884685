"""Every API shape the mock speaks, registered once: a new one is a module with its `SHAPE` and
one line here. Each is checked as it is registered, so a shape that lacks a part, names an
unknown provider or claims another's path is refused when the package loads, not mid-run."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ctxconf.cache import PROVIDERS, provider_named
from ctxconf.errors import DataError

from . import anthropic_messages, gemini, openai_chat, openai_responses
from .shape import ApiShape, Asked, problems
from .wire import Request


def registered(shapes: Iterable[ApiShape], providers: Iterable[str]) -> dict[str, ApiShape]:
    """The shapes by name; DataError naming every problem of every shape."""
    known = list(providers)
    out: dict[str, ApiShape] = {}
    claimed: dict[str, str] = {}
    found: list[str] = []
    for shape in shapes:
        found += [f"API shape {shape.name!r}: {p}" for p in problems(shape, known)]
        if shape.name in out:
            found.append(f"API shape {shape.name!r} is registered twice")
        for ending, _ in shape.routes:
            if ending in claimed:
                found.append(
                    f"API shape {shape.name!r}: path ending {ending!r} is {claimed[ending]!r}'s"
                )
            claimed.setdefault(ending, shape.name)
        out[shape.name] = shape
    if found:
        raise DataError("; ".join(found))
    return out


SHAPES: dict[str, ApiShape] = registered(
    (
        openai_chat.SHAPE,
        openai_responses.SHAPE,
        anthropic_messages.SHAPE,
        gemini.SHAPE,
    ),
    PROVIDERS,
)


def shape_named(name: str) -> ApiShape:
    found = SHAPES.get(name)
    if found is None:
        raise DataError(f"unknown API shape {name!r}: one of {', '.join(SHAPES)}")
    return found


def route_of(path: str) -> tuple[Asked, str] | None:
    """What a POST to `path` (no query) asks and of which shape: the longest ending that fits,
    so `/messages/count_tokens` is a count and not an answer."""
    fits = [
        (len(ending), kind, shape.name)
        for shape in SHAPES.values()
        for ending, kind in shape.routes
        if path.endswith(ending)
    ]
    if not fits:
        return None
    _, kind, name = max(fits)
    return kind, name


def parse_request(name: str, body: Mapping[str, Any], stream: bool = False) -> Request:
    """The view of one request body; `stream` counts where the path says it (Gemini's)."""
    return shape_named(name).parse(body, stream)


def provider_for(name: str, asked: str | None) -> str:
    """The provider a request of shape `name` is simulated under: the one asked for, or the
    shape's own; DataError when the asked one's rules do not apply to the shape."""
    shape = shape_named(name)
    if asked is None:
        return shape.providers[0]
    chosen = provider_named(asked)
    if chosen.name not in shape.providers:
        served = ", ".join(served_by(chosen.name))
        raise DataError(f"provider {asked!r} serves {served}, not the {name} API shape")
    return chosen.name


def served_by(provider: str) -> Sequence[str]:
    """The shapes whose requests `provider`'s rules apply to, in the registry's order."""
    return [shape.name for shape in SHAPES.values() if provider in shape.providers]
