"""The numbers and texts of the history area: `loop.json` `history`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..texts import Texts, read_loop


@dataclass(frozen=True)
class Ladder:
    """`history.ladder`: what the compaction ladder aims for and what it protects."""

    target: Fraction  # the share of the window a compaction aims under
    keep_tokens: int  # the protected tail's budget
    elide_min_tokens: int  # the fewest tokens an elision run must reclaim
    images_keep: int  # the newest images of the request that are never pruned
    page_chars: int  # the characters of one snapshot page
    shake_keep_tokens: int  # the protected tail's budget under /shake


@dataclass(frozen=True)
class HistoryConfig:
    """What a `HistorySession` needs from `loop.json`."""

    version: str
    main: str  # the name of a session's first conversation
    chars_per_token: int
    image_tokens: int
    ladder: Ladder
    compact_request: str  # prefix.texts.compact_request: what a summary request adds
    texts: Texts

    @classmethod
    def from_loop(cls, loop: Mapping[str, Any]) -> HistoryConfig:
        history = loop["history"]
        ladder = history["ladder"]
        return cls(
            version=loop["version"],
            main=history["main"],
            chars_per_token=int(history["chars_per_token"]),
            image_tokens=int(history["image_tokens"]),
            ladder=Ladder(
                # Exact, whether loop.json was read with floats or Decimals.
                target=Fraction(str(ladder["target"])),
                keep_tokens=int(ladder["keep_tokens"]),
                elide_min_tokens=int(ladder["elide_min_tokens"]),
                images_keep=int(ladder["images_keep"]),
                page_chars=int(ladder["page_chars"]),
                shake_keep_tokens=int(ladder["shake_keep_tokens"]),
            ),
            compact_request=loop["prefix"]["texts"]["compact_request"],
            texts=Texts(history["texts"]),
        )

    @classmethod
    def load(cls, spec_dir: Path | None = None) -> HistoryConfig:
        """Read `loop.json` from `spec_dir`, or from the spec bundled with ctxconf."""
        return cls.from_loop(read_loop(spec_dir))
