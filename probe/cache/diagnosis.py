"""Why each request read less than it could have: what changed since the earlier request it goes
on from (among those the cache still held), which parameter forked the cache, or which of the
provider's rules kept it from reading what it shares."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cause import ANCHORS, Cause
from .classify import content_cause
from .outcome import Outcome
from .prefix import best_earlier
from .provider import Provider, Scope
from .request import CacheRequest

_LOSES: dict[Scope, str] = {
    "all": "the whole cache",
    "messages": "everything from the first message on",
}


@dataclass(frozen=True)
class Diagnosis:
    """One request's causes, first the API's refusal, then forked parameters, then the first
    change to what was sent, then the provider's rule; `shared` is what it shares with the
    earlier request `against`, `read` what it read."""

    request: int
    against: int | None
    read: int
    shared: int
    causes: tuple[Cause, ...]

    @property
    def lost(self) -> int:
        return max(0, self.shared - self.read)


def _forks(provider: Provider, earlier: CacheRequest, later: CacheRequest) -> list[Cause]:
    causes = []
    for name, scope in provider.forks.items():
        old, new = earlier.params.get(name), later.params.get(name)
        if old != new:
            kind = "model" if name == "model" else "parameter"
            detail = f"{name} changed from {old or '(none)'} to {new or '(none)'}: {_LOSES[scope]}"
            causes.append(Cause(kind, ANCHORS[kind], detail))
    return causes


def diagnose_one(
    provider: Provider, requests: Sequence[CacheRequest], outcomes: Sequence[Outcome], index: int
) -> Diagnosis | None:
    request, outcome = requests[index], outcomes[index]
    causes: list[Cause] = []
    if outcome.error is not None:
        error = outcome.error
        causes.append(Cause(error.kind, ANCHORS[error.kind], error.message, error.unit))
    against, shared_tokens = None, 0
    best = best_earlier(requests, index, outcome.held)
    if best is not None:
        against, found = best
        shared_tokens = found.tokens
        causes += _forks(provider, requests[against], request)
        changed = content_cause(requests[against], request, found)
        if changed is not None:
            causes.append(changed)
    if outcome.shortfall is not None:
        short = outcome.shortfall
        causes.append(Cause(short.kind, ANCHORS[short.kind], short.detail, short.unit))
    if not causes:
        return None
    read = outcome.figures.cache_read if outcome.figures else 0
    return Diagnosis(index, against, read, shared_tokens, tuple(causes))


def diagnose(
    provider: Provider, requests: Sequence[CacheRequest], outcomes: Sequence[Outcome]
) -> tuple[Diagnosis | None, ...]:
    """Each request's diagnosis, None for one that lost nothing."""
    if len(requests) != len(outcomes):
        raise ValueError("one outcome per request")
    return tuple(diagnose_one(provider, requests, outcomes, i) for i in range(len(requests)))


__all__ = ["Diagnosis", "diagnose", "diagnose_one"]
