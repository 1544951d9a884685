"""One session's prompt cache as the mock keeps it: every request it answers is read as the
cache audit reads it and played, with the session's earlier requests, under one provider's
rules, so that each answer carries the figures that provider would have reported.

The provider is the request's API shape's own (the first its module names) unless the run
names another whose rules apply to the shape (`shapes.provider_for`). Each provider's session
is played one request at a time (`Provider.session`): an answer costs its own request, however
long the session has run. Times come from a clock
given to the session (the mock's monotonic clock), each strictly later than the one before: the
simulators are pure and read no clock of their own. A scenario's pause between turns moves that
clock on without waiting (`advance`): only a lifetime sees it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from ctxconf.cache import CacheRequest, Outcome, provider_named
from ctxconf.cache.credentials import Headers, scrub_value, secrets_of
from ctxconf.cache.provider import Player
from ctxconf.shapes import provider_for, read_request
from ctxconf.shapes.wire import Shape

# The least step between two requests' times, so that one is always strictly later.
TICK = 1e-6


def model_in_path(path: str) -> str | None:
    """The model a Gemini path names (`…/models/gemini-2.5-flash:generateContent`)."""
    base = unquote(urlsplit(path).path)
    if "/models/" not in base:
        return None
    name = base.rsplit("/models/", 1)[1].split(":", 1)[0]
    return name or None


def scrubbed_body(body: Mapping[str, Any], headers: Headers) -> Any:
    """The body with every credential its headers carry replaced, as it may be kept."""
    return scrub_value(dict(body), secrets_of(headers))


@dataclass(frozen=True)
class Played:
    """A request as the session's cache took it: its place among the requests the session
    played, the time it was given, the provider, the request as read, and its outcome."""

    index: int
    at: float
    provider: str
    request: CacheRequest
    outcome: Outcome

    def record(self) -> dict[str, Any]:
        """What the log keeps to play the session again: never a credential."""
        return {
            "index": self.index,
            "at": self.at,
            "provider": self.provider,
            "model": self.request.model,
            "headers": dict(self.request.headers),
        }


class SessionCache:
    def __init__(self, provider: str | None = None, clock: Callable[[], float] = time.monotonic):
        self.asked = provider
        self.clock = clock
        self.lock = threading.Lock()
        # One cache per provider: a mock that is sent two API shapes keeps them apart.
        self.sessions: dict[str, Player] = {}
        self.count = 0
        self.last = float("-inf")
        self.passed = 0.0  # seconds the scenario's pauses moved the clock on

    def advance(self, seconds: float) -> None:
        """Move the session's clock on, as a pause between turns passes on a provider's."""
        with self.lock:
            self.passed += seconds

    def play(self, shape: Shape, body: Mapping[str, Any], headers: Headers, path: str) -> Played:
        pairs = list(headers.items()) if isinstance(headers, Mapping) else list(headers)
        with self.lock:
            name = provider_for(shape, self.asked)
            at = max(self.clock() + self.passed, self.last + TICK)
            self.last = at
            request = read_request(shape, body, pairs, at, model=model_in_path(path))
            if name not in self.sessions:
                self.sessions[name] = provider_named(name).session()
            outcome = self.sessions[name].add(request)
            self.count += 1
            return Played(self.count - 1, at, name, request, outcome)


__all__ = ["TICK", "Played", "SessionCache", "model_in_path", "scrubbed_body"]
