"""What a line, a character and a content hash are (`ctx.text.*`).

A line ends at `\n` and nowhere else: `\r`, U+2028, `\v` and `\f` are ordinary characters of
the line they stand in. A final `\n` ends the last line rather than starting an empty one, so
`"a\nb\n"` and `"a\nb"` both have two lines and `""` has none. A character is a Unicode code
point, which is what `len()` counts on a Python `str`.

A long text is never split whole to find a few of its lines: its `\n` are counted in C, chunk
by chunk, and only the lines wanted are cut out.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from itertools import accumulate

_CHUNK = 1 << 16  # characters counted at a time
_SCAN = 512  # below this many characters a chunk is searched line end by line end


def count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def split_lines(text: str) -> list[str]:
    """The lines of `text`, without their `\n`."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _newline_within(text: str, n: int, start: int, stop: int) -> int:
    """Where the `n`-th `\n` of text[start:stop] is; it holds at least `n` of them."""
    while stop - start > _SCAN:
        middle = (start + stop) // 2
        before = text.count("\n", start, middle)
        if before >= n:
            stop = middle
        else:
            n -= before
            start = middle
    at = start - 1
    for _ in range(n):
        at = text.find("\n", at + 1, stop)
    return at


def nth_newline(text: str, n: int, start: int = 0) -> int:
    """Where the `n`-th `\n` of `text` from `start` is (n from 1), or -1 when it has fewer."""
    while start < len(text):
        stop = start + _CHUNK
        found = text.count("\n", start, stop)
        if found >= n:
            return _newline_within(text, n, start, stop)
        n -= found
        start = stop
    return -1


def _between(text: str, start: int, end: int) -> str:
    """From `start` to the line end at `end`, or to the end of the text when `end` is -1."""
    return text[start : len(text) if end == -1 else end]


def line_window(text: str, first: int, last: int) -> list[str]:
    """Lines `first`..`last` (1-based, inclusive, `first` a line of the text)."""
    start = nth_newline(text, first - 1) + 1 if first > 1 else 0
    # rule: ctx.text.lines
    return _between(text, start, nth_newline(text, last - first + 1, start)).split("\n")


class LineIndex:
    """How many `\n` precede each chunk of one text: built in one pass of C, after which any
    line is found by counting within a single chunk. What a stored result keeps for `recall`,
    beside the text itself."""

    def __init__(self, text: str) -> None:
        self.text = text
        per_chunk = (
            text.count("\n", start, start + _CHUNK) for start in range(0, len(text), _CHUNK)
        )
        self._before = list(accumulate(per_chunk, initial=0))  # `\n` before chunk i
        newlines = self._before[-1]
        self.total = newlines + (1 if text and not text.endswith("\n") else 0)

    def newline(self, n: int) -> int:
        """Where the `n`-th `\n` is (n from 1), or -1 when the text has fewer."""
        if n > self._before[-1]:
            return -1
        chunk = bisect_left(self._before, n) - 1  # the chunk holding it
        start = chunk * _CHUNK
        return _newline_within(self.text, n - self._before[chunk], start, start + _CHUNK)

    def window(self, first: int, last: int) -> str:
        """Lines `first`..`last` (1-based, inclusive, within the text) joined by `\n`."""
        start = self.newline(first - 1) + 1 if first > 1 else 0
        return _between(self.text, start, self.newline(last))


def content_sha(text: str) -> str:
    """SHA-256 of the UTF-8 bytes, in lowercase hex."""
    # rule: ctx.read.final-newline
    # rule: ctx.text.hash
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
