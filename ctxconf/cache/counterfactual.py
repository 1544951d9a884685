"""The request a harness would have sent had it not made its change: this request with the units
that differ from the compared earlier request as that one sent them (the prefix kept), with the
earlier request's model and parameters. What the provider's rules would have read from it, less
what this request read, is what the change cost.

The units that differ run from the first difference to where the two requests agree again (a
unit of each, and the one after it, the same); the earlier request's units stand in for them.
Where they never agree again, the change is taken to be the rest of its section (a system
prompt remade before a compacted history costs what the prompt kept would have read), and in
the history, the earlier request's units all stand, with this request's new units after them."""

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


def _renumbered(tail: Sequence[Unit], first: int) -> tuple[Unit, ...]:
    """The tail's units with their messages numbered on so that its first message is `first`."""
    messages = [u.message for u in tail if u.section == "messages"]
    if not messages:
        return tuple(tail)
    shift = first - messages[0]
    return tuple(
        dataclasses.replace(u, message=u.message + shift) if u.section == "messages" else u
        for u in tail
    )


def _agree_again(earlier: CacheRequest, later: CacheRequest, first: int) -> tuple[int, int] | None:
    """The first place past the difference at `first` where the two requests agree again: a
    unit of each, and the unit after it where there is one, the same; (earlier's, later's)."""
    a, b = earlier.units, later.units
    where: dict[bytes, list[int]] = {}
    for i in range(first, len(a)):
        where.setdefault(a[i].data, []).append(i)
    for j in range(first, len(b)):
        for i in where.get(b[j].data, ()):
            if (i, j) == (first, first):
                continue
            if i + 1 < len(a) and j + 1 < len(b) and a[i + 1].data != b[j + 1].data:
                continue
            return i, j
    return None


def _section_end(units: Sequence[Unit], start: int) -> int:
    section = units[start].section if start < len(units) else None
    end = start
    while end < len(units) and units[end].section == section:
        end += 1
    return end


def kept_prefix(earlier: CacheRequest, later: CacheRequest, found: Shared) -> CacheRequest:
    """`later` as it would have been sent without its change: the units that differ from
    `earlier` as `earlier` sent them, and `earlier`'s model, parameters and tools."""
    first = found.units
    again = _agree_again(earlier, later, first)
    a, b = earlier.units, later.units
    if again is not None:
        i, j = again
        kept, rest = a[:i], b[j:]
        number = a[i].message  # the unit it agrees at is the same, so is its message
    else:
        if first < len(b) and b[first].section != "messages":
            i, j = _section_end(a, first), _section_end(b, first)
            kept, rest = a[:i], b[j:]
        else:
            start = _tail_start(earlier, later, found)
            kept, rest = a, b[start:]
            j = start
        last = next((u.message for u in reversed(kept) if u.section == "messages"), -1)
        joins = bool(rest) and 0 < j <= len(b) and b[j - 1].message == rest[0].message
        number = last if joins and last >= 0 else last + 1
    units = tuple(kept) + _renumbered(rest, number)
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
