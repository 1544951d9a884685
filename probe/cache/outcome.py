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


ShortfallKind = Literal["breakpoint-missing", "breakpoint-moved", "below-minimum", "no-caching"]


@dataclass(frozen=True)
class Shortfall:
    """Why the provider read less than the request shares with an earlier one it still held."""

    kind: ShortfallKind
    detail: str
    unit: str | None  # the unit it concerns in this request


@dataclass(frozen=True)
class Outcome:
    figures: Figures | None  # None when the API refused the request
    error: ApiError | None
    held: tuple[int, ...]  # earlier requests (their indexes) the cache still held
    shortfall: Shortfall | None = None


__all__ = ["ApiError", "Figures", "Outcome", "RefusalKind", "Shortfall", "ShortfallKind"]
