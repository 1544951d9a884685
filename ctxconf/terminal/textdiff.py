"""Differences between two texts for a person to read: whitespace and line ends made visible."""

from __future__ import annotations

import difflib
import re

from ctxconf.terminal.controls import visible_controls

_TRAILING = re.compile(r"[ ]+$")
# Beside the controls: characters some libraries take for line breaks, and the invisible BOM.
_INVISIBLE = "\u2028\u2029\ufeff"


def visible(line: str) -> str:
    """`line` with tabs, carriage returns, trailing spaces and invisible characters shown."""
    line = line.replace("\t", "→").replace("\r", "␍")
    line = visible_controls(line, also=_INVISIBLE)
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
