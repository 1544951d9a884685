"""The numbers and texts of the context area, read from `loop.json` `context`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..texts import Texts, read_loop


@dataclass(frozen=True)
class Limits:
    """The output cap (`cap.*`): when a result is over, and how much head and tail it keeps."""

    max_lines: int
    max_chars: int
    head_lines: int
    head_chars: int
    tail_lines: int
    tail_chars: int

    def merged(self, overrides: Mapping[str, int] | None) -> Limits:
        return replace(self, **dict(overrides)) if overrides else self


@dataclass(frozen=True)
class ContextConfig:
    """Everything in `loop.json` `context` that decides what a session inserts."""

    version: str
    id_digits: int
    sha_digits: int
    read_window: int
    recall_window: int
    cap: Limits
    diff_context: int
    diff_max_edit: int
    dedupe_by_result: frozenset[str]
    compaction_rows: int
    texts: Texts

    @classmethod
    def from_loop(cls, loop: Mapping[str, Any]) -> ContextConfig:
        ctx = loop["context"]
        return cls(
            version=loop["version"],
            id_digits=ctx["ids"]["digits"],
            sha_digits=ctx["sha_digits"],
            read_window=ctx["read"]["window"],
            recall_window=ctx["recall"]["window"],
            cap=Limits(**ctx["cap"]),
            diff_context=ctx["diff"]["context"],
            diff_max_edit=ctx["diff"]["max_edit"],
            dedupe_by_result=frozenset(ctx["dedupe"]["by_result"]),
            compaction_rows=ctx["compaction"]["rows"],
            texts=Texts(ctx["texts"]),
        )

    @classmethod
    def load(cls, spec_dir: Path | None = None) -> ContextConfig:
        """Read `loop.json` from `spec_dir`, or from the spec bundled with ctxconf."""
        return cls.from_loop(read_loop(spec_dir))
