"""How much of a request an earlier one shares from the start, and the cumulative hashes a
provider keys its cache entries by."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate

from .request import CacheRequest, Unit
from .tokens import partial_tokens


def common_bytes(a: bytes, b: bytes) -> int:
    """How many bytes `a` and `b` share from their start."""
    same, differ = 0, min(len(a), len(b))
    if a[:differ] == b[:differ]:
        return differ
    # The first difference lies in a[same:differ]; halve it, each half compared whole (in C,
    # not byte by byte).
    while differ - same > 1:
        middle = (same + differ) // 2
        if a[same:middle] == b[same:middle]:
            same = middle
        else:
            differ = middle
    return same


@dataclass(frozen=True)
class Shared:
    """What a later request shares with an earlier one from the start: whole units, then part
    of the next one; `full` when the earlier request is all shared (it is a prefix)."""

    units: int
    unit_tokens: int
    partial_bytes: int
    full: bool

    @property
    def tokens(self) -> int:
        return self.unit_tokens + partial_tokens(self.partial_bytes)


def shared(earlier: CacheRequest, later: CacheRequest) -> Shared:
    a, b = earlier.unit_digests, later.unit_digests
    # The first units agree as far as their cumulative digests do, so the last that agrees is
    # found by halving, not unit by unit.
    count, beyond = 0, min(len(a), len(b))
    while count < beyond:
        middle = (count + beyond + 1) // 2
        if a[middle - 1] == b[middle - 1]:
            count = middle
        else:
            beyond = middle - 1
    tokens = earlier.unit_tokens_through[count - 1] if count else 0
    if count < min(len(a), len(b)):
        partial = common_bytes(earlier.units[count].data, later.units[count].data)
        return Shared(count, tokens, partial, full=False)
    return Shared(count, tokens, 0, full=count == len(earlier.units))


def longest(
    requests: Sequence[CacheRequest], index: int, candidates: Iterable[int], above: int = -1
) -> tuple[int, Shared] | None:
    """The candidate that shares the most tokens with `requests[index]` (the latest on a tie):
    what a prefix cache reads from; with `above`, None unless it shares more than that."""
    later = requests[index]
    best: tuple[int, Shared] | None = None
    # The latest first: in a session that goes on, it shares the most, and no earlier request
    # can share more than all its own tokens, so most are passed over without a comparison.
    for j in reversed(list(candidates)):
        floor = above if best is None else max(above, best[1].tokens)
        if requests[j].tokens <= floor:
            continue  # all it holds is no more than the floor: it cannot share more
        bound = _most_shared(requests[j], later, floor)
        if bound <= above:
            continue
        if best is not None and (bound, j) <= (best[1].tokens, best[0]):
            continue
        found = shared(requests[j], later)
        if best is None or (found.tokens, j) > (best[1].tokens, best[0]):
            best = (j, found)
    return best if best is None or best[1].tokens > above else None


def _most_shared(earlier: CacheRequest, later: CacheRequest, floor: int) -> int:
    """At least what `later` shares with `earlier` (`shared(...).tokens`), found from a few of
    their cumulative digests, looked at only until it is shown to be at most `floor` or cannot be:
    two requests that part at unit k share no more than the tokens through it."""
    if not earlier.units:
        return 0
    through = earlier.unit_tokens_through
    if through[-1] <= floor:
        return through[-1]
    a, b = earlier.unit_digests, later.unit_digests
    k, end = 1, min(len(a), len(b))
    while k <= end and through[k - 1] <= floor:
        if a[k - 1] != b[k - 1]:
            return through[k - 1]  # they part within the first k units
        k *= 2
    return through[-1]


def branches(earlier: CacheRequest, later: CacheRequest, found: Shared) -> bool:
    """Whether the two requests part within the last message of each: two newest inputs after
    one history (a side request ending with a prompt of its own, a message edited and sent
    again), not a history `later` rewrote. A message that `later` goes on past was answered,
    and changing it is a rewrite."""
    k = found.units
    if found.full or k >= len(later.units) or not earlier.units:
        return False
    a, b = earlier.units[k], later.units[k]
    return (
        a.section == b.section == "messages"
        and a.message == earlier.units[-1].message
        and b.message == later.units[-1].message
    )


def best_earlier(
    requests: Sequence[CacheRequest], index: int, held: Iterable[int]
) -> tuple[int, Shared] | None:
    """The held earlier request `requests[index]` goes on from, to be compared with: one it
    did not branch from first, then the most whole-unit tokens shared, then the most bytes of
    the next unit, then the latest."""
    later = requests[index]
    best: tuple[tuple[bool, int, int, int], int, Shared] | None = None
    # The latest first, passing over an earlier one that cannot outrank the best found: it
    # shares at most all its own tokens, and one that shares them all has no part of a unit
    # beyond them (a unit of no tokens has no bytes), so a tie goes to the later request.
    for j in sorted(held, reverse=True):
        if best is not None and best[0][0] and requests[j].tokens <= best[0][1]:
            continue
        found = shared(requests[j], later)
        rank = (not branches(requests[j], later, found), found.unit_tokens, found.partial_bytes, j)
        if best is None or rank > best[0]:
            best = (rank, j, found)
    return None if best is None else (best[1], best[2])


def cumulative_tokens(units: Sequence[Unit]) -> list[int]:
    """The tokens of the prefix ending at each unit, that unit included."""
    return list(accumulate(unit.tokens for unit in units))


def chain(units: Sequence[Unit], salts: Mapping[int, bytes] | None = None) -> list[bytes]:
    """The cumulative hash at each unit: of every unit before it and itself, with `salts[i]`
    mixed in just before unit i (what forks a provider's cache from that point)."""
    digest = hashlib.sha256()
    out = []
    for index, unit in enumerate(units):
        if salts and index in salts:
            digest.update(b"\x00salt" + salts[index])
        digest.update(len(unit.data).to_bytes(8, "big") + unit.data)
        out.append(digest.copy().digest())
    return out


def common_hashes(a: Sequence[bytes], b: Sequence[bytes]) -> int:
    """How many units two chains share from the start."""
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


__all__ = [
    "Shared",
    "best_earlier",
    "branches",
    "chain",
    "common_bytes",
    "common_hashes",
    "cumulative_tokens",
    "longest",
    "shared",
]
