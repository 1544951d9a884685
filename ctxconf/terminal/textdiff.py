"""Differences between two texts for a person to read: whitespace, line ends and characters
that pass for others made visible."""

from __future__ import annotations

import difflib
import re
import unicodedata

from ctxconf.terminal.controls import code_point

_TRAILING = re.compile(r"[ ]+$")
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def disguised(char: str) -> bool:
    """Whether a character reads as nothing or as another one: it is not printable (a control,
    a line or paragraph separator, a format character such as U+FEFF or U+200B, a space other
    than U+0020 such as U+00A0), or its canonical form is another character (U+212A KELVIN SIGN
    is K, U+2126 OHM SIGN is Ω)."""
    if char.isascii():
        return not char.isprintable()
    return not char.isprintable() or unicodedata.normalize("NFC", char) != char


def _marked(char: str) -> str:
    return code_point(char) if disguised(char) else char


def visible(line: str) -> str:
    """`line` with tabs, carriage returns, trailing spaces, and characters that read as nothing
    or as others (`disguised`) shown: `⟨U+00A0⟩`."""
    line = line.replace("\t", "→").replace("\r", "␍")
    if line.isascii():
        line = _ASCII_CONTROL.sub(lambda m: _marked(m.group()), line)
    else:
        line = "".join(_marked(char) for char in line)
    return _TRAILING.sub(lambda m: "·" * len(m.group()), line)


def _lines_with_ends(text: str) -> list[str]:
    # A line ends at "\n" only (the spec's definition); the ends are kept so they are compared.
    parts = text.split("\n")
    last = parts.pop()
    return [part + "\n" for part in parts] + ([last] if last else [])


def visible_diff(
    expected: str | None,
    actual: str | None,
    *,
    names: tuple[str, str] = ("expected", "actual"),
    context: int = 3,
) -> list[str]:
    """A unified diff of two texts, whitespace visible, `⏎` where a changed line ends (so a
    missing final newline shows as a line without it); [] when they are equal."""
    out: list[str] = []
    for line in difflib.unified_diff(
        _lines_with_ends(expected or ""),
        _lines_with_ends(actual or ""),
        *names,
        n=context,
        lineterm="",
    ):
        if line.startswith(("---", "+++", "@@")):
            out.append(line.rstrip("\n"))
            continue
        body = line[1:]
        ends = body.endswith("\n")
        shown = visible(body[:-1] if ends else body)
        out.append(line[0] + shown + ("⏎" if ends and line[0] != " " else ""))
    return out
