"""What a line, a character and a content hash are (`ctx.text.*`).

A line ends at `\n` and nowhere else: `\r`, U+2028, `\v` and `\f` are ordinary characters of
the line they stand in. A final `\n` ends the last line rather than starting an empty one, so
`"a\nb\n"` and `"a\nb"` both have two lines and `""` has none. A character is a Unicode code
point, which is what `len()` counts on a Python `str`.
"""

from __future__ import annotations

import hashlib


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


def line_window(text: str, first: int, last: int) -> list[str]:
    """Lines `first`..`last` (1-based, inclusive) without splitting the rest of a long text."""
    return text.split("\n", last)[first - 1 : last]


def content_sha(text: str) -> str:
    """SHA-256 of the UTF-8 bytes, in lowercase hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
