"""Why each request read less than it could have: what changed since the earlier request it goes
on from (among those the cache still held), which parameter forked the cache, or which of the
provider's rules kept it from reading what it shares."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cause import ANCHORS, Cause
from .classify import content_cause
from .loss import NONE, Loss, measure_loss
from .outcome import Expiry, Outcome, lifetime_label
from .prefix import best_earlier
from .provider import Provider, Scope
from .request import CacheRequest, request_name

_LOSES: dict[Scope, str] = {
    "all": "the whole cache",
    "messages": "everything from the first message on",
}


@dataclass(frozen=True)
class Diagnosis:
    """One request's causes, first the API's refusal, then forked parameters, then the first
    change to what was sent, then the provider's rule, then an entry that expired; `shared` is
    what it shares byte for byte with the earlier request `against`, `read` what it read, and
    `loss` what each cause cost (`loss.py`)."""

    request: int
    against: int | None
    read: int
    shared: int
    causes: tuple[Cause, ...]
    loss: Loss = NONE

    @property
    def lost(self) -> int:
        """What the harness lost: had it kept its prefix and marked it, what more was read."""
        return self.loss.by_harness


def _forks(provider: Provider, earlier: CacheRequest, later: CacheRequest) -> list[Cause]:
    causes = []
    for name, scope in provider.forks.items():
        old, new = earlier.params.get(name), later.params.get(name)
        if old != new:
            kind = "model" if name == "model" else "parameter"
            detail = f"{name} changed from {old or '(none)'} to {new or '(none)'}: {_LOSES[scope]}"
            causes.append(Cause(kind, ANCHORS[kind], detail))
    return causes


def _expired(requests: Sequence[CacheRequest], expiry: Expiry) -> Cause:
    mark = f" with its mark at {expiry.unit}" if expiry.unit else ""
    also = "".join(
        f"; so did the entry of {tokens:,} tokens{f' at {unit}' if unit else ''}, which lives "
        f"{lifetime_label(lifetime)}"
        for unit, lifetime, tokens in expiry.also
    )
    detail = (
        f"the entry of {expiry.tokens:,} tokens {request_name(requests, expiry.writer)} last "
        f"wrote or read{mark} lives {expiry.label}, and {_duration(expiry.idle)} passed "
        f"before this request{also}: the provider dropped {'them' if also else 'it'} "
        "(no harness's doing)"
    )
    return Cause("expired", ANCHORS["expired"], detail, expiry.unit)


def _duration(seconds: float) -> str:
    whole = int(seconds)
    if whole < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def _own_request(earlier: CacheRequest, later: CacheRequest, shared: int) -> bool:
    """Whether `later` keeps nothing of `earlier`: no token shared from the start, none of its
    tools and none of its units anywhere (a title or a summary asked apart, under a prompt of
    its own): no change of it, and nothing it could have read."""
    if shared:
        return False
    if {t.name for t in earlier.tools} & {t.name for t in later.tools}:
        return False
    sent = {u.data for u in earlier.units}
    return not any(u.data in sent for u in later.units)


def _answered(outcomes: Sequence[Outcome], index: int) -> list[int]:
    return [j for j in range(index) if outcomes[j].error is None]


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
    # Nothing held: the request is compared with the earlier one it goes on from all the same,
    # to tell what the pause took from what a change would have.
    stale = best is None
    if stale:
        best = best_earlier(requests, index, _answered(outcomes, index))
    if best is not None and _own_request(requests[best[0]], request, best[1].tokens):
        best = None  # it keeps nothing of any earlier request: a request of its own
    changes: list[Cause] = []
    if best is not None:
        against, found = best
        shared_tokens = found.tokens
        changes += _forks(provider, requests[against], request)
        changed = content_cause(requests[against], request, found)
        if changed is not None:
            changes.append(changed)
    loss = measure_loss(provider, requests, outcomes, index, best, bool(changes))
    if stale and not loss.harness:
        changes = []  # the cache was gone: the change cost nothing
    causes += changes
    # The provider's rule as it stood in the best case, which the loss's parts are counted in.
    short = loss.shortfall
    if short is None and not changes and outcome.shortfall is not None:
        short = outcome.shortfall if outcome.shortfall.kind != "rounding" else None
    if short is not None:
        causes.append(Cause(short.kind, ANCHORS[short.kind], short.detail, short.unit))
    expiry = loss.expiry or outcome.expired
    if expiry is not None and loss.lifetime:
        causes.append(_expired(requests, expiry))
    if not causes:
        return None
    read = outcome.figures.cache_read if outcome.figures else 0
    return Diagnosis(index, against, read, shared_tokens, tuple(causes), loss)


def diagnose(
    provider: Provider, requests: Sequence[CacheRequest], outcomes: Sequence[Outcome]
) -> tuple[Diagnosis | None, ...]:
    """Each request's diagnosis, None for one that lost nothing."""
    if len(requests) != len(outcomes):
        raise ValueError("one outcome per request")
    # Compared as the provider read them: what it dropped by itself is no change of the harness.
    read = [provider.reads(r) for r in requests]
    return tuple(diagnose_one(provider, read, outcomes, i) for i in range(len(requests)))


__all__ = ["Diagnosis", "diagnose", "diagnose_one"]
