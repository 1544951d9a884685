"""A text's lines as a page shows them, bounded by what is shown and not by what was sent.

A text longer than `MAX_SHOWN_LINES` lines or `MAX_SHOWN_CHARS` characters keeps its head and its
tail, with its full size and sha256 named (the whole text stays in the results file); a line
longer than `MAX_LINE_CHARS` keeps its start and end. No long text or line is ever copied whole.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

# Per side of a diff (or per shown text): beyond either, only its head and tail are shown.
MAX_SHOWN_LINES = 2000
MAX_SHOWN_CHARS = 200_000
# A longer line shows its first and last halves of this many characters.
MAX_LINE_CHARS = 4000
# Beyond this many characters a changed line is marked whole: difflib's matcher is quadratic.


@dataclass(frozen=True)
class Bounds:
    """How much of one text is shown: at most `lines` lines and about `chars` characters."""

    lines: int
    chars: int


FULL = Bounds(MAX_SHOWN_LINES, MAX_SHOWN_CHARS)
NOTHING = Bounds(0, 0)  # only the text's size and sha256


@dataclass(frozen=True)
class Line:
    number: int
    text: str  # without its line end; for a cut line, its start and end joined
    newline: bool
    cut_at: int  # where the left-out middle of a cut line was (0: the line is whole)
    cut: int  # characters left out of the middle
    digest: str  # sha256 of a cut line's whole text, so that two cut lines compare whole

    @property
    def key(self) -> str:
        # Lines are aligned on their text without trailing blanks and line ends, so that a text
        # that differs only there (CRLF, spaces at the end) pairs each line with its counterpart.
        return self.digest or self.text.rstrip(" \t\r")

    def same_as(self, other: Line) -> bool:
        return (self.text, self.newline, self.cut, self.digest) == (
            other.text,
            other.newline,
            other.cut,
            other.digest,
        )


def _make_line(number: int, text: str, start: int, end: int, newline: bool) -> Line:
    """The line `text[start:end]`, its middle left out when it is long (never copied whole)."""
    if end - start <= MAX_LINE_CHARS:
        return Line(number, text[start:end], newline, 0, 0, "")
    half = MAX_LINE_CHARS // 2
    _, digest = _size_and_digest(text, start, end)
    shown = text[start : start + half] + text[end - half : end]
    return Line(number, shown, newline, half, end - start - 2 * half, digest)


@dataclass(frozen=True)
class Side:
    """A text's shown lines: all of them, or a head and a tail with what lies between named."""

    head: list[Line]
    tail: list[Line]
    total_lines: int
    note: str  # "" when the whole text is shown

    @property
    def clipped(self) -> bool:
        return bool(self.note)


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if text == "" or text.endswith("\n") else 1)


def _size_and_digest(text: str, start: int = 0, end: int | None = None) -> tuple[int, str]:
    """The UTF-8 size and sha256 of `text[start:end]`, encoded a slice at a time (no copy)."""
    digest, size, step = hashlib.sha256(), 0, 1 << 18
    stop = len(text) if end is None else end
    for at in range(start, stop, step):
        chunk = text[at : min(at + step, stop)].encode("utf-8", "surrogatepass")
        digest.update(chunk)
        size += len(chunk)
    return size, digest.hexdigest()


def _forward(text: str, stop: int, lines: int, chars: int) -> tuple[list[Line], int]:
    """Lines from the start of `text` (not past `stop`) within the budgets, and where they end."""
    found: list[Line] = []
    position = used = 0
    while position < stop and len(found) < lines and used < chars:
        end = text.find("\n", position, stop)
        newline = end != -1
        end = stop if end == -1 else end
        line = _make_line(len(found) + 1, text, position, end, newline)
        found.append(line)
        used += len(line.text) + 1
        position = end + 1 if newline else end
    return found, position


def _backward(text: str, start: int, lines: int, chars: int, total: int) -> list[Line]:
    """Lines from the end of `text` (not before `start`) within the budgets, numbered by `total`."""
    raw: list[tuple[int, int, bool]] = []
    end, used = len(text), 0
    if text.endswith("\n"):
        end -= 1
        raw_newline = True
    else:
        raw_newline = False
    while end > start and len(raw) < lines and used < chars:
        begin = text.rfind("\n", start, end) + 1
        begin = max(begin, start)
        raw.append((begin, end, raw_newline))
        used += min(end - begin, MAX_LINE_CHARS) + 1
        raw_newline = True
        end = begin - 1
    raw.reverse()
    first = total - len(raw) + 1
    return [_make_line(first + i, text, b, e, nl) for i, (b, e, nl) in enumerate(raw)]


def shown_side(text: str, what: str, bounds: Bounds) -> Side:
    total = _line_count(text)
    if total <= bounds.lines and len(text) <= bounds.chars:
        lines, _ = _forward(text, len(text), total, len(text) + total + 1)
        return Side(lines, [], total, "")
    half_lines, half_chars = bounds.lines // 2, bounds.chars // 2
    head, head_end = _forward(text, len(text), half_lines, half_chars)
    tail = _backward(text, head_end, half_lines, half_chars, total)
    size, digest = _size_and_digest(text)
    shown = f"its first {lines_text(len(head))}" if head else "none of it"
    shown += f" and last {lines_text(len(tail))}" if tail else ""
    note = (
        f"{what}: {lines_text(total)}, {_size(size)}, sha256 {digest}; shown: {shown}. "
        "The whole text is in the results file."
    )
    return Side(head, tail, total, note)


def lines_text(count: int) -> str:
    return f"{count:,} line{'' if count == 1 else 's'}"


def _size(size: int) -> str:
    if size < 1000:
        return f"{size} byte{'' if size == 1 else 's'}"
    unit, scale = ("MB", 1_000_000) if size >= 1_000_000 else ("kB", 1000)
    return f"{size / scale:,.1f} {unit} ({size:,} bytes)"


def gap_note(side: Side) -> str:
    """The note between a clipped text's head and tail ("" when no whole line is left out)."""
    left_out = side.total_lines - len(side.head) - len(side.tail)
    first = len(side.head) + 1
    if left_out <= 0:
        return ""
    return f"… {lines_text(left_out)} not shown (lines {first:,} to {first + left_out - 1:,}) …"
