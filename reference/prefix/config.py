"""The numbers and texts of the prefix area: `loop.json` `prefix` and `context.note`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..texts import Texts, read_loop


@dataclass(frozen=True)
class CacheConfig:
    """The cache marks of a request body: how many a request may carry, and their lifetimes."""

    max_marks: int
    prefix_ttl: str  # the tools' and the system prompt's marks
    message_ttl: str  # the newest message's mark

    @classmethod
    def from_loop(cls, cache: Mapping[str, Any]) -> CacheConfig:
        return cls(cache["max_marks"], cache["prefix_ttl"], cache["message_ttl"])


@dataclass(frozen=True)
class PrefixConfig:
    """What a `PrefixSession` needs from `loop.json`: the notes, the request texts, the wait,
    the cache marks, the models that keep only the last turn's reasoning."""

    version: str
    mcp_wait_ms: int
    plan_mode: str
    cache: CacheConfig
    last_turn_only: tuple[str, ...]  # models whose provider drops earlier turns' reasoning
    notes: Texts  # context.note: what a <session-note> says of each change
    texts: Texts  # prefix.texts: requests, refusals, the compaction request, the usage rows

    @classmethod
    def from_loop(cls, loop: Mapping[str, Any]) -> PrefixConfig:
        note = loop["context"]["note"]
        prefix = loop["prefix"]
        return cls(
            version=loop["version"],
            mcp_wait_ms=note["mcp_wait_ms"],
            plan_mode=prefix["plan_mode"],
            cache=CacheConfig.from_loop(prefix["cache"]),
            last_turn_only=tuple(prefix["reasoning"]["last_turn_only"]),
            # context.note holds one number beside its templates.
            notes=Texts({name: text for name, text in note.items() if isinstance(text, str)}),
            texts=Texts(prefix["texts"]),
        )

    @classmethod
    def load(cls, spec_dir: Path | None = None) -> PrefixConfig:
        """Read `loop.json` from `spec_dir`, or from the spec bundled with ctxconf."""
        return cls.from_loop(read_loop(spec_dir))
