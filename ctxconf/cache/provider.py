"""A provider's cache as one record: its name, the parameters that fork its cache, and a session
of its rules played one request at a time (`session`), or a whole session at once (`simulate`).
Which API shapes its rules apply to is said by each shape (`shapes/`), so a new shape touches no
provider."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from .outcome import Outcome
from .request import CacheRequest

# What a changed parameter loses: the whole cache, or everything from the first message on.
Scope = Literal["all", "messages"]


class Player(Protocol):
    """One session's cache under a provider's rules: each request, in the order sent, played
    against what the ones before it left, and its outcome answered. A request's outcome depends
    on the earlier ones alone, so a session played one at a time is the session played whole."""

    def add(self, request: CacheRequest) -> Outcome: ...


def as_sent(request: CacheRequest) -> CacheRequest:
    return request


@dataclass(frozen=True)
class _AsRead:
    player: Player
    reads: Callable[[CacheRequest], CacheRequest]

    def add(self, request: CacheRequest) -> Outcome:
        return self.player.add(self.reads(request))


@dataclass(frozen=True)
class Provider:
    name: str
    description: str
    forks: Mapping[str, Scope]
    player: Callable[[], Player]  # a new session of its rules, each request taken as given
    # A request as the provider reads it: what it drops by itself taken out (`reasoning.py`).
    reads: Callable[[CacheRequest], CacheRequest] = as_sent

    def session(self) -> Player:
        """A new session, each request played as the provider reads it: a mock answering a
        session as it goes plays only the new request."""
        return _AsRead(self.player(), self.reads)

    def simulate(self, requests: Sequence[CacheRequest]) -> tuple[Outcome, ...]:
        """A session's requests, in the order sent, each as the provider reads it."""
        return played(self.session(), requests)


def played(session: Player, requests: Sequence[CacheRequest]) -> tuple[Outcome, ...]:
    """Each request added to `session` in turn, and its outcome."""
    return tuple(session.add(request) for request in requests)


__all__ = ["Player", "Provider", "Scope", "as_sent", "played"]
