"""Differences between two texts for a person to read: whitespace and line ends made visible."""

from __future__ import annotations

import difflib
import re

_TRAILING = re.compile(r"[ ]+$")
# Characters some libraries take for line breaks, and other invisible controls.
_INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff]")


def visible(line: str) -> str:
    """`line` with tabs, carriage returns, trailing spaces and invisible characters shown."""
    line = line.replace("\t", "→").replace("\r", "␍")
    line = _INVISIBLE.sub(lambda m: f"⟨U+{ord(m.group()):04X}⟩", line)
    return _TRAILING.sub(lambda m: "·" * len(m.group()), line)


def visible_diff(expected: str | None, actual: str | None, *, names: tuple[str, str] = ("expected", "actual")) -> list[str]:
    """A unified diff of two texts, line by line, each line's whitespace visible; `⏎` notes
    a final newline, since a missing one is otherwise invisible."""

    def lines(text: str | None) -> list[str]:
        if text is None:
            return []
        parts = text.split("\n")
        shown = [visible(part) for part in parts[:-1]] + [visible(parts[-1])]
        if text.endswith("\n"):
            shown[-2:] = [shown[-2] + "⏎"] if len(shown) >= 2 else ["⏎"]
        return shown

    return list(
        difflib.unified_diff(lines(expected), lines(actual), names[0], names[1], lineterm="", n=3)
    )
