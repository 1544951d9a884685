"""What a simulator gives each request: its figures (or the API's refusal), the earlier requests
the cache still held, and, where the provider's rules and not the bytes kept it from reading what
it shares with them, why."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class Figures:
    """A request's input side (prefix.md `pfx.usage.numbers`)."""

    input_total: int
    cache_read: int
    cache_write: int
    cache_write_1h: int = 0  # of cache_write, what was written to live an hour (Anthropic)

    @property
    def uncached(self) -> int:
        """Processed afresh, cache writes among them (`pfx.usage.uncached-writes`)."""
        return self.input_total - self.cache_read

    @property
    def neither(self) -> int:
        """Neither read nor written: Anthropic's `input_tokens`."""
        return self.input_total - self.cache_read - self.cache_write


RefusalKind = Literal["breakpoint-limit", "ttl-order", "automatic-ttl"]


@dataclass(frozen=True)
class ApiError:
    """The provider's refusal, as its API answers it: the status and the body."""

    status: int
    body: Mapping[str, Any]
    kind: RefusalKind
    unit: str | None  # the unit whose mark it names

    @property
    def message(self) -> str:
        error = self.body.get("error")
        return str(error.get("message", "")) if isinstance(error, Mapping) else ""


ShortfallKind = Literal[
    "breakpoint-missing", "breakpoint-moved", "below-minimum", "no-caching", "rounding"
]
# The kinds that are the harness's to mend (where it marks); the others are the provider's.
MARK_KINDS: frozenset[str] = frozenset({"breakpoint-missing", "breakpoint-moved"})


@dataclass(frozen=True)
class Shortfall:
    """Why the provider read less than the request shares with an earlier one it still held:
    `reach` is what the provider's rule kept from being read, counted from the request's start
    (the read is below it)."""

    kind: ShortfallKind
    detail: str
    unit: str | None  # the unit it concerns in this request
    reach: int = 0


@dataclass(frozen=True)
class Expiry:
    """An entry this request would have read had it not expired: the request that wrote (or
    last refreshed) it, the unit its mark is on, its lifetime and how long it was unused."""

    writer: int
    unit: str | None
    lifetime: float  # seconds
    idle: float  # seconds from its last use to this request
    tokens: int  # the prefix it held
    # Shorter entries of other lifetimes that had expired too: (unit, lifetime, tokens).
    also: tuple[tuple[str | None, float, int], ...] = ()

    @property
    def label(self) -> str:
        return lifetime_label(self.lifetime)


def lifetime_label(seconds: float) -> str:
    """A lifetime as people write it: 5 min, 1 h, 24 h."""
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{int(seconds // 3600)} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{int(seconds // 60)} min"
    return f"{seconds:g} s"


@dataclass(frozen=True)
class Outcome:
    figures: Figures | None  # None when the API refused the request
    error: ApiError | None
    held: tuple[int, ...]  # earlier requests (their indexes) the cache still held
    shortfall: Shortfall | None = None
    read_from: int | None = None  # the earlier request whose entry (or prompt) was read
    expired: Expiry | None = None  # the longest entry it shares that had expired


__all__ = [
    "MARK_KINDS",
    "ApiError",
    "Expiry",
    "Figures",
    "Outcome",
    "RefusalKind",
    "Shortfall",
    "ShortfallKind",
    "lifetime_label",
]
