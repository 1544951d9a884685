"""The request as every simulator sees it: the ordered units a provider hashes, their marks, the
parameters that fork a cache, and the caching headers, whatever the API shape it came in (each
shape's cache reader in `shapes/` makes it)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate
from typing import Literal

Section = Literal["tools", "system", "messages"]
# The parameters that fork a cache; a simulator says which of them it keys on.
PARAMS = ("model", "thinking", "effort", "tool_choice", "prompt_cache_key", "images")
# Parameters that fork no simulated cache but that a provider's own diagnostics compare
# (`provider_diagnostics.py`): a difference there is a reason of its own.
DIAGNOSED = (
    "context_management",
    "output_config",
    "output_format",
    "service_tier",
    "text_format",
    "verbosity",
)


@dataclass(frozen=True)
class Unit:
    """One cacheable unit: a tool, a block of the system prompt, or a block of a message (the
    first block of a message carries the message's role and fields)."""

    section: Section
    path: str  # where it sits in the body: "tools.2", "system.0", "messages.3.content.1"
    kind: str  # "tool", "text", "tool_use", "tool_result", "image", "function_call", ...
    role: str  # the message's role; "" for tools, "system" for a system block
    message: int  # its message's index in the body's list; -1 for tools and a top-level system
    data: bytes  # the canonical bytes (canonical.py)
    tokens: int  # tokens.py's estimate of `data`
    order_free: bytes  # a digest of the same value with every key sorted
    ttl: str | None = None  # an Anthropic `cache_control` on it: "5m" or "1h"
    breakpoint: bool = False  # an OpenAI `prompt_cache_breakpoint` on it


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    schema: str  # canonical JSON of its parameter schema, as sent


@dataclass(frozen=True)
class CacheSettings:
    """What the body says about caching besides its marks."""

    auto_ttl: str | None = None  # Anthropic's top-level `cache_control` (automatic caching)
    mode: str | None = None  # OpenAI `prompt_cache_options.mode`
    retention: str | None = None  # OpenAI `prompt_cache_retention` or `prompt_cache_options.ttl`
    cache_prompt: bool = True  # llama.cpp's `cache_prompt`
    slot: int | None = None  # llama.cpp's `id_slot`


@dataclass(frozen=True)
class CacheRequest:
    shape: str  # the API shape it came in (`shapes.SHAPES`)
    time: float  # when it arrived, in seconds (any origin, the same for a whole session)
    model: str
    units: tuple[Unit, ...]
    tools: tuple[ToolSpec, ...]
    # Each of PARAMS and DIAGNOSED: canonical JSON text, None when absent.
    params: Mapping[str, str | None]
    settings: CacheSettings = field(default_factory=CacheSettings)
    headers: tuple[tuple[str, str], ...] = ()  # the caching headers (credentials.py)
    number: int | None = None  # its number in the session's log, for the words about it
    # The units the provider dropped before reading it (`reasoning.py`), by path.
    dropped: tuple[str, ...] = ()
    # The message before which the provider drops every reasoning unit; None: it drops none.
    reasoning_cut: int | None = None

    @cached_property
    def tokens(self) -> int:
        return self.unit_tokens_through[-1] if self.units else 0

    # Made once per request: a session compares each request with every earlier one, and each
    # new request plays the session again from its start.
    @cached_property
    def unit_digests(self) -> tuple[bytes, ...]:
        """The digest of the units up to and including each one (each unit's bytes after their
        length, so no two lists run together): two requests hold the same first k units exactly
        when their k-th digests agree."""
        digest, digests = hashlib.sha256(), []
        for unit in self.units:
            digest.update(len(unit.data).to_bytes(8, "big") + unit.data)
            digests.append(digest.digest())
        return tuple(digests)

    @cached_property
    def unit_tokens_through(self) -> tuple[int, ...]:
        """The tokens of the units up to and including each one."""
        return tuple(accumulate(unit.tokens for unit in self.units))


def request_name(requests: Sequence[CacheRequest], index: int) -> str:
    """How the words about a cache name an earlier request: its number in the log."""
    number = requests[index].number
    return f"request {number if number is not None else index + 1}"


__all__ = [
    "DIAGNOSED",
    "PARAMS",
    "CacheRequest",
    "CacheSettings",
    "Section",
    "ToolSpec",
    "Unit",
    "request_name",
]
