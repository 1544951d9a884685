"""Anthropic's prompt cache, as its prompt-caching documentation (2025 and 2026) states it.

- Entries are written only at breakpoints: each `cache_control` (and the automatic one a
  top-level `cache_control` puts on the last cacheable block) writes the prefix ending there.
- At most 4 breakpoints; a fifth is refused with the API's own 400 body, as is a 1-hour mark
  after a 5-minute one, and an automatic mark whose lifetime differs from a mark already on the
  last block (that message is ours: the documentation gives no text for it).
- A read checks, from each breakpoint, its own prefix and then one position back at a time, 20
  positions in all counting the breakpoint; a run of `tool_use` or of `tool_result` blocks of one
  message is one position. The longest entry found wins.
- A breakpoint whose prefix is under the model's minimum writes nothing (no error).
- An entry lives 5 minutes or 1 hour from the start of the request that wrote or last read it.
- Written tokens are billed 1.25x (5 minutes) or 2x (1 hour), split by the three-position rule.
- The model keys the cache; `tool_choice`, thinking, effort and whether images are present fork
  it from the first message on (tools and system kept).

Choices where the documentation leaves a point open: the minimum is tested per breakpoint
prefix; a read refreshes the entry it read and no shorter one; an entry is readable by a
request that starts strictly after the one that wrote it (the API makes it readable once the
first response has begun); message boundaries and a string content are no positions of their
own (a string is one text block); thinking changes keep tools and system (the documentation
says it is model-specific); a model not in the table has a minimum of 1,024 tokens, the value
both page versions give most models.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from .outcome import ApiError, Expiry, Figures, Outcome, RefusalKind, Shortfall
from .prefix import best_earlier, chain, common_hashes, cumulative_tokens
from .provider import Provider, Scope
from .reasoning import provider_reads
from .request import CacheRequest, Unit, request_name

MAX_BREAKPOINTS = 4
LOOKBACK = 20
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}
DEFAULT_MINIMUM = 1024
# Minimum cacheable prompt by (family, version): the 2026 page, then the 2025 page's older models.
MINIMUMS: dict[tuple[str, tuple[int, ...]], int] = {
    ("fable", (5, 1)): 512,
    ("mythos", (5, 1)): 512,
    ("opus", (5,)): 512,
    ("fable", (5,)): 512,
    ("mythos", (5,)): 512,
    ("opus", (4, 8)): 1024,
    ("sonnet", (5,)): 1024,
    ("sonnet", (4, 6)): 1024,
    ("sonnet", (4, 5)): 1024,
    ("opus", (4, 1)): 1024,
    ("opus", (4,)): 1024,
    ("sonnet", (4,)): 1024,
    ("mythos", ()): 2048,  # Mythos Preview
    ("opus", (4, 7)): 2048,
    ("haiku", (3, 5)): 2048,
    ("opus", (4, 6)): 4096,
    ("opus", (4, 5)): 4096,
    ("haiku", (4, 5)): 4096,
    ("sonnet", (3, 7)): 1024,
    ("sonnet", (3, 5)): 1024,
    ("opus", (3,)): 1024,
    ("haiku", (3,)): 2048,
}
FAMILIES = ("fable", "mythos", "opus", "sonnet", "haiku")
FORKS: dict[str, Scope] = {
    "model": "all",
    "tool_choice": "messages",
    "thinking": "messages",
    "effort": "messages",
    "images": "messages",
}
_NOT_CACHEABLE = ("thinking", "redacted_thinking", "message")
_RUNS = ("tool_use", "tool_result")


def minimum_tokens(model: str) -> int:
    """The model's minimum cacheable prompt, read from an id such as `claude-sonnet-4-5-2025…`
    or `claude-3-5-haiku-…` (a date is no version)."""
    words = [w for w in re.split(r"[^a-z0-9]+", model.lower()) if w]
    family = next((w for w in words if w in FAMILIES), None)
    version = tuple(int(w) for w in words if w.isdigit() and len(w) <= 2)
    if family is None:
        return DEFAULT_MINIMUM
    return MINIMUMS.get((family, version), DEFAULT_MINIMUM)


def _refusal(kind: RefusalKind, message: str, unit: str | None) -> ApiError:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    return ApiError(400, body, kind, unit)


def _cacheable(unit: Unit) -> bool:
    empty_text = unit.kind == "text" and b'"text":""' in unit.data
    return unit.kind not in _NOT_CACHEABLE and not empty_text


def breakpoints(request: CacheRequest) -> tuple[list[tuple[int, str]], ApiError | None]:
    """The breakpoints (unit index, lifetime) in order, or the API's refusal of them."""
    units = request.units
    marks = [(i, u.ttl) for i, u in enumerate(units) if u.ttl is not None]
    auto = request.settings.auto_ttl
    target = next((i for i in range(len(units) - 1, -1, -1) if _cacheable(units[i])), None)
    if auto is not None and target is not None:
        already = next((ttl for i, ttl in marks if i == target), None)
        if already is None:
            marks = sorted([*marks, (target, auto)])
        elif already != auto:
            message = (
                f"cache_control: the top-level cache_control asks for ttl='{auto}', but the last "
                f"cacheable block already has ttl='{already}'"
            )
            return [], _refusal("automatic-ttl", message, units[target].path)
    if len(marks) > MAX_BREAKPOINTS:
        message = (
            f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {len(marks)}."
        )
        return [], _refusal("breakpoint-limit", message, units[marks[MAX_BREAKPOINTS][0]].path)
    short_seen = False
    for index, ttl in marks:
        if ttl == "1h" and short_seen:
            message = (
                f"{units[index].path}.cache_control.ttl: a ttl='1h' cache_control block must not "
                "come after a ttl='5m' cache_control block. Note that blocks are processed in "
                "the following order: tools, system, messages."
            )
            return [], _refusal("ttl-order", message, units[index].path)
        short_seen = short_seen or ttl != "1h"
    return marks, None


def position_ends(units: Sequence[Unit]) -> list[int]:
    """The unit that ends each position: a run of tool_use (or tool_result) blocks of one
    message is one position, every other unit is its own."""
    ends = []
    for i, unit in enumerate(units):
        after = units[i + 1] if i + 1 < len(units) else None
        in_run = (
            after is not None
            and unit.kind in _RUNS
            and after.kind == unit.kind
            and after.message == unit.message
        )
        if not in_run:
            ends.append(i)
    return ends


def window(breakpoint: int, ends: Sequence[int]) -> list[int]:
    """What a read checks from one breakpoint: its own prefix, then each position back, 20 in
    all."""
    return [breakpoint, *(p for p in reversed(ends) if p < breakpoint)][:LOOKBACK]


def fork_salts(request: CacheRequest) -> dict[int, bytes]:
    first = next((i for i, u in enumerate(request.units) if u.section == "messages"), None)
    if first is None:
        return {}
    forks = [f"{name}={request.params.get(name)}" for name, s in FORKS.items() if s == "messages"]
    return {first: "\n".join(forks).encode("utf-8")}


def _seconds(ttl: str) -> float:
    return TTL_SECONDS.get(ttl, TTL_SECONDS["5m"])


def _longest(marks: Sequence[tuple[int, str]]) -> float:
    """How long a request's entries are held: its longest mark's lifetime."""
    return max((_seconds(ttl) for _, ttl in marks), default=TTL_SECONDS["5m"])


@dataclass
class _Entry:
    ttl: str
    expires: float
    written_at: float  # the start of the request that wrote it
    writer: int  # that request's index
    used_by: int  # the request that wrote or last read it


class _Session:
    """The cache of one account across a session's requests."""

    def __init__(self) -> None:
        self.requests: list[CacheRequest] = []
        self.store: dict[tuple[str, bytes], _Entry] = {}
        self.chains: list[list[bytes]] = []
        self.marks: list[list[tuple[int, str]]] = []
        self.outcomes: list[Outcome] = []
        # The answered requests whose lifetime had not ended by the last request's start, with
        # its end: a session's times only grow, so one that ended stays ended, and a long
        # session's request looks at those still held, not at every one before it.
        self._alive: list[tuple[int, float]] = []
        self._last = -math.inf

    def add(self, request: CacheRequest) -> Outcome:
        self.requests.append(request)
        self.chains.append(chain(request.units, fork_salts(request)))
        index = len(self.requests) - 1
        outcome = self.play(index)
        self.outcomes.append(outcome)
        if outcome.error is None:
            self._alive.append((index, request.time + _longest(self.marks[index])))
        return outcome

    def live(self, model: str, digest: bytes, t: float) -> _Entry | None:
        entry = self.store.get((model, digest))
        return entry if entry and entry.written_at < t < entry.expires else None

    def held(self, index: int) -> tuple[int, ...]:
        """The answered earlier requests whose lifetime spans this one's start."""
        t = self.requests[index].time
        if t < self._last:  # times given out of order: every earlier request looked at
            return tuple(
                j for j, until in self._every_lifetime() if self.requests[j].time < t < until
            )
        self._last = t
        self._alive = [(j, until) for j, until in self._alive if t < until]
        return tuple(j for j, _ in self._alive if self.requests[j].time < t)

    def _every_lifetime(self) -> list[tuple[int, float]]:
        return [
            (j, self.requests[j].time + _longest(marks))
            for j, (marks, outcome) in enumerate(zip(self.marks, self.outcomes, strict=False))
            if outcome.error is None
        ]

    def play(self, index: int) -> Outcome:
        request, hashes = self.requests[index], self.chains[index]
        t, model = request.time, request.model
        held = self.held(index)
        marks, error = breakpoints(request)
        self.marks.append(marks)
        if error is not None:
            return Outcome(None, error, held)
        cum = cumulative_tokens(request.units)
        ends = position_ends(request.units)
        read_at: int | None = None
        for breakpoint, _ in marks:
            checked = window(breakpoint, ends)
            found = next((p for p in checked if self.live(model, hashes[p], t)), None)
            if found is not None and (read_at is None or found > read_at):
                read_at = found
        read = cum[read_at] if read_at is not None else 0
        read_from = None
        if read_at is not None:
            entry = self.live(model, hashes[read_at], t)
            assert entry is not None
            entry.expires, entry.used_by, read_from = t + _seconds(entry.ttl), index, entry.writer
        minimum = minimum_tokens(model)
        expired = self.expired(index, read)
        written = [(i, ttl) for i, ttl in marks if cum[i] >= minimum and cum[i] > read]
        last = max((cum[i] for i, _ in written), default=read)
        hour = max((cum[i] for i, ttl in written if ttl == "1h"), default=read)
        for i, ttl in written:
            self.store[(model, hashes[i])] = _Entry(ttl, t + _seconds(ttl), t, index, index)
        figures = Figures(request.tokens, read, last - read, hour - read)
        shortfall = self.shortfall(index, held, marks, read, minimum)
        if shortfall is not None and expired is not None and expired.tokens >= shortfall.reach:
            shortfall = None  # what was shared had been written: its lifetime ended, no mark
        return Outcome(figures, None, held, shortfall, read_from, expired)

    def expired(self, index: int, read: int) -> Expiry | None:
        """The longest entry this request holds the prefix of that had expired by its start,
        with the longest of each other lifetime that had too."""
        request, hashes = self.requests[index], self.chains[index]
        cum, t = request.unit_tokens_through, request.time
        found: list[tuple[int, _Entry]] = []
        for p in range(len(hashes) - 1, -1, -1):
            if cum[p] <= read:
                break
            entry = self.store.get((request.model, hashes[p]))
            if entry is not None and entry.written_at < t and entry.expires <= t:
                if all(e.ttl != entry.ttl for _, e in found):
                    found.append((p, entry))
        if not found:
            return None
        (p, entry), rest = found[0], found[1:]
        lifetime = _seconds(entry.ttl)
        also = tuple((request.units[q].path, _seconds(e.ttl), cum[q]) for q, e in rest)
        idle = t - (entry.expires - lifetime)
        return Expiry(entry.used_by, request.units[p].path, lifetime, idle, cum[p], also)

    def shortfall(
        self,
        index: int,
        held: tuple[int, ...],
        marks: list[tuple[int, str]],
        read: int,
        minimum: int,
    ) -> Shortfall | None:
        """Why less was read than the request shares (byte for byte, forks included) with the
        earlier request of its model it goes on from."""
        request, hashes = self.requests[index], self.chains[index]
        same = [j for j in held if self.requests[j].model == request.model]
        if not same:
            return None
        found = best_earlier(self.requests, index, same)
        if found is None:
            return None
        best = found[0]
        count = common_hashes(self.chains[best], hashes)
        cum = cumulative_tokens(request.units)
        reach = cum[count - 1] if count else 0
        if read >= reach:
            return None
        last_shared = request.units[count - 1].path
        if not marks:
            detail = "no cache_control in the request, nor a top-level one: nothing is read"
            return Shortfall("breakpoint-missing", detail, last_shared, reach)
        for p in range(count - 1, -1, -1):
            entry = self.live(request.model, hashes[p], request.time)
            if entry is None or cum[p] <= read:
                continue
            detail = self._moved(index, p, entry, marks)
            return Shortfall("breakpoint-moved", detail, request.units[p].path, cum[p])
        if reach < minimum:
            if count < len(self.chains[best]) and request.tokens >= minimum:
                return None  # short because the bytes diverged early: the divergence's doing
            detail = (
                f"the shared prefix is {reach} tokens; {request.model or 'the model'} caches "
                f"from {minimum}"
            )
            return Shortfall("below-minimum", detail, last_shared, reach)
        # The earlier request's breakpoints within what is shared, had any written.
        before = [i for i, _ in self.marks[best] if i < count and cum[i] > read]
        if before and all(cum[i] < minimum for i in before):
            last_mark = request.units[before[-1]].path
            detail = (
                f"the only breakpoint{'s' if len(before) > 1 else ''} in the shared prefix "
                f"(the last at {last_mark}) end{'' if len(before) > 1 else 's'} under "
                f"{request.model or 'the model'}'s minimum of {minimum} tokens "
                f"({cum[before[-1]]}), so nothing was written"
            )
            return Shortfall("below-minimum", detail, last_mark, reach)
        detail = (
            f"no earlier breakpoint ends in the {reach - read} shared tokens after the "
            f"{read} read, so none of them was written"
        )
        return Shortfall("breakpoint-missing", detail, last_shared, reach)

    def _moved(self, index: int, entry_at: int, entry: _Entry, marks: list[tuple[int, str]]) -> str:
        units = self.requests[index].units
        after = [i for i, _ in marks if i >= entry_at]
        writer = request_name(self.requests, entry.writer)
        where = f"{writer} wrote an entry with its mark at {units[entry_at].path}"
        if not after:
            last = units[marks[-1][0]].path if marks else "none"
            return (
                f"{where}; this request's marks all come before it (the last at {last}), "
                "so none reaches it"
            )
        ends = position_ends(units)
        if entry_at not in ends:
            end = units[min(p for p in ends if p > entry_at)].path
            return (
                f"{where}, inside a run of blocks the lookback checks as one (it ends at "
                f"{end}); this request's mark is at {units[after[0]].path}"
            )
        # Both ends counted, as the lookback counts them: the breakpoint is the first.
        counted = 2 + sum(1 for p in ends if entry_at < p < after[0])
        return (
            f"{where}; this request's mark is at {units[after[0]].path}, {counted} positions "
            f"from it counting both: the lookback checks {LOOKBACK}"
        )


PROVIDER = Provider(
    name="anthropic",
    description="Anthropic Messages: breakpoints, 20-block lookback, 5 min / 1 h",
    forks=FORKS,
    player=_Session,
    reads=partial(provider_reads, "anthropic"),
)

__all__ = [
    "DEFAULT_MINIMUM",
    "FORKS",
    "LOOKBACK",
    "MAX_BREAKPOINTS",
    "MINIMUMS",
    "PROVIDER",
    "TTL_SECONDS",
    "breakpoints",
    "minimum_tokens",
    "position_ends",
    "window",
]
