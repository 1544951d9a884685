"""The request a harness would have sent had it kept what it sent before: the compared earlier
request's units as they were, then this request's own new units after them, with the earlier
request's model and parameters. What the provider's rules would have read from it, less what
this request read, is what the change cost."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .outcome import Outcome
from .prefix import Shared
from .provider import Provider
from .request import CacheRequest, Unit


def _tail_start(earlier: CacheRequest, later: CacheRequest, found: Shared) -> int:
    """Where `later`'s units stop answering to `earlier`'s: just after the last unit of
    `earlier` that `later` holds again past the first difference (with the most of the units
    before it agreeing); else past as many units as `earlier` has."""
    where: dict[bytes, list[int]] = {}
    for position in range(found.units, len(later.units)):
        where.setdefault(later.units[position].data, []).append(position)
    for k in range(len(earlier.units) - 1, found.units - 1, -1):
        spots = where.get(earlier.units[k].data)
        if not spots:
            continue

        def agreeing(spot: int, k: int = k) -> int:
            run = 0
            while (
                run < k - found.units
                and spot - run - 1 >= found.units
                and later.units[spot - run - 1].data == earlier.units[k - run - 1].data
            ):
                run += 1
            return run

        spot = max(spots, key=lambda s: (agreeing(s), s))
        # Units of `earlier` after k were rewritten in place: skip as many of `later`'s.
        return min(len(later.units), spot + 1 + (len(earlier.units) - 1 - k))
    return min(len(later.units), max(len(earlier.units), found.units))


def _renumbered(tail: Sequence[Unit], after: int, joins: bool) -> tuple[Unit, ...]:
    """The tail's units with their messages numbered on from `after`, the earlier request's
    last message (the first of the tail continuing it when `joins`)."""
    if not tail:
        return ()
    messages = [u.message for u in tail if u.section == "messages"]
    if not messages:
        return tuple(tail)
    shift = after + (0 if joins else 1) - messages[0]
    return tuple(
        dataclasses.replace(u, message=u.message + shift) if u.section == "messages" else u
        for u in tail
    )


def kept_prefix(earlier: CacheRequest, later: CacheRequest, found: Shared) -> CacheRequest:
    """`later` as it would have been sent keeping all of `earlier`: its model, parameters,
    tools and units, with `later`'s new units after them."""
    start = _tail_start(earlier, later, found)
    tail = later.units[start:]
    last = earlier.units[-1].message if earlier.units else -1
    joins = bool(tail) and start > 0 and later.units[start - 1].message == tail[0].message
    units = earlier.units + _renumbered(tail, last, joins and tail[0].section == "messages")
    return dataclasses.replace(
        later, units=units, tools=earlier.tools, model=earlier.model, params=earlier.params
    )


def what_if(
    provider: Provider, requests: Sequence[CacheRequest], index: int, instead: CacheRequest
) -> Outcome:
    """The outcome of `instead` sent in place of `requests[index]`, after the same earlier
    requests."""
    return provider.simulate([*requests[:index], instead])[-1]


__all__ = ["kept_prefix", "what_if"]
