"""The bytes around the first place two units differ, for a person to read: a few dozen bytes
each side, control and invisible characters made visible."""

from __future__ import annotations

from dataclasses import dataclass

from ...terminal.textdiff import visible

CONTEXT_BYTES = 40
ELLIPSIS = "…"


@dataclass(frozen=True)
class ByteDiff:
    """The earlier and the later unit around `offset` (a byte offset into the unit); `at` is
    where the difference starts in both texts, in characters."""

    offset: int
    earlier: str
    later: str
    at: int

    def lines(self) -> list[str]:
        """The diff as three lines: `-` earlier, `+` later, and a caret under the difference."""
        return [f"- {self.earlier}", f"+ {self.later}", "  " + " " * self.at + "^"]


def _text(data: bytes) -> str:
    # A window may cut a character in two: its stray bytes are dropped, not guessed at.
    return visible(data.decode("utf-8", errors="ignore"))


def byte_diff(earlier: bytes, later: bytes, offset: int) -> ByteDiff:
    start = max(0, offset - CONTEXT_BYTES)
    lead = ELLIPSIS if start > 0 else ""
    head = lead + _text(later[start:offset])

    def around(data: bytes) -> str:
        end = offset + CONTEXT_BYTES
        tail = ELLIPSIS if end < len(data) else ""
        return head + _text(data[offset:end]) + tail

    return ByteDiff(offset, around(earlier), around(later), len(head))


__all__ = ["CONTEXT_BYTES", "ByteDiff", "byte_diff"]
