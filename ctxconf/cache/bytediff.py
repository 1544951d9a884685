"""The bytes around the first place two units differ, for a person to read: a few dozen bytes
each side, control and invisible characters made visible."""

from __future__ import annotations

from dataclasses import dataclass

from ctxconf.terminal.textdiff import visible

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


def _decoded(data: bytes) -> str:
    # A window may cut a character in two: its stray bytes are dropped, not guessed at.
    return data.decode("utf-8", errors="ignore")


def byte_diff(earlier: bytes, later: bytes, offset: int) -> ByteDiff:
    start = max(0, offset - CONTEXT_BYTES)
    head = (ELLIPSIS if start > 0 else "") + _decoded(later[start:offset])

    def around(data: bytes) -> str:
        end = offset + CONTEXT_BYTES
        tail = ELLIPSIS if end < len(data) else ""
        return visible(head + _decoded(data[offset:end]) + tail)

    # visible() shows each character as one, or as a longer ⟨U+…⟩ in both texts alike.
    return ByteDiff(offset, around(earlier), around(later), len(visible(head + "x")) - 1)


__all__ = ["CONTEXT_BYTES", "ByteDiff", "byte_diff"]
