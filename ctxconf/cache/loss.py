"""What a request's cache loss was, as counterfactuals under the provider's own rules: what it
would have read had the harness kept the prefix it had sent (`harness`), had no entry expired
in the pause before it (`lifetime`), and what the provider's rules still kept from reading of
what it shared (`marks`, the harness's to mend; `provider`, its steps and minimums, no
harness's). Each is counted from the last: the parts add up to what the best case reads less
what the request read."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from .counterfactual import kept_prefix, what_if
from .outcome import MARK_KINDS, Expiry, Outcome, Shortfall
from .prefix import Shared
from .provider import Provider
from .request import CacheRequest

# How much later than the request before it a request is played "had the pause not been":
# strictly later, as every simulator needs, and within every lifetime.
NO_PAUSE_S = 1e-3


@dataclass(frozen=True)
class Loss:
    harness: int  # what keeping the earlier request's prefix and parameters would have read more
    marks: int  # shared and held, yet no breakpoint reached it
    lifetime: int  # what an entry that expired in the pause before the request held more
    provider: int  # shared, yet under the provider's granularity: its steps, its minimum
    best_read: int  # what the request would have read with none of the harness's or the
    # pause's losses
    expiry: Expiry | None = None  # the entry whose end the lifetime part is
    shortfall: Shortfall | None = None  # the provider's rule the marks or provider part is

    @property
    def by_harness(self) -> int:
        """What the harness lost: its changes and its marks."""
        return self.harness + self.marks

    @property
    def by_provider(self) -> int:
        """What no harness could have kept: lifetimes, rounding and minimums."""
        return self.lifetime + self.provider

    @property
    def parts(self) -> tuple[int, int, int, int]:
        """The four parts, in the order their tokens follow the read: harness, marks, lifetime,
        provider."""
        return (self.harness, self.marks, self.lifetime, self.provider)


NONE = Loss(0, 0, 0, 0, 0)


def measure_loss(
    provider: Provider,
    requests: Sequence[CacheRequest],
    outcomes: Sequence[Outcome],
    index: int,
    compared: tuple[int, Shared] | None,
    changed: bool,
) -> Loss:
    """The loss of `requests[index]`; `compared` is the earlier request it goes on from and
    what they share, `changed` whether it changed what that one sent (or a parameter)."""
    outcome = outcomes[index]
    if outcome.figures is None:
        return NONE  # refused: nothing was billed, nothing read
    read = outcome.figures.cache_read
    request, kept = requests[index], outcomes[index]
    if changed and compared is not None:
        earlier, found = compared
        request = kept_prefix(requests[earlier], requests[index], found)
        kept = what_if(provider, requests, index, request)
    kept_read = kept.figures.cache_read if kept.figures else read
    best = kept
    if kept.expired is not None and index > 0:
        at = requests[index - 1].time + NO_PAUSE_S
        if at < request.time:
            best = what_if(provider, requests, index, dataclasses.replace(request, time=at))
    best_read = best.figures.cache_read if best.figures else kept_read
    # No part counts more than the request sent and did not read: a kept prefix longer than the
    # request itself (tools it no longer sends) is no cost of its.
    room = max(0, requests[index].tokens - read)
    harness = min(room, max(0, kept_read - read))
    lifetime = min(room - harness, max(0, best_read - max(kept_read, read)))
    rest = 0
    if best.shortfall is not None:
        rest = min(room - harness - lifetime, max(0, best.shortfall.reach - max(best_read, read)))
    in_marks = best.shortfall is not None and best.shortfall.kind in MARK_KINDS
    return Loss(
        harness,
        rest if in_marks else 0,
        lifetime,
        0 if in_marks else rest,
        max(best_read, read),
        kept.expired if lifetime else None,
        best.shortfall if rest else None,
    )


__all__ = ["NONE", "NO_PAUSE_S", "Loss", "measure_loss"]
