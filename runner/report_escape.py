"""Lines as escaped HTML with their whitespace visible.

Every character reaches the page through `markupsafe.escape`, a run of ordinary characters at a
time; spaces at the end of a line, tabs, carriage returns, other invisible characters and
characters whose canonical form is another (U+212A KELVIN SIGN is K) each become a small marked
glyph, and so does the end of each line.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from markupsafe import Markup, escape

from ctxconf.terminal.textdiff import disguised

from .report_lines import FULL, Bounds, Line, gap_note, shown_side


@dataclass(frozen=True)
class Cell:
    """One line of one side of a diff (or of a shown text); `html` is already escaped."""

    kind: str  # same | del | ins | filler | note
    number: int | None
    html: Markup


_EOL = '<span class="eol">↵</span>'  # the commonest glyph: the page's legend explains it
_NO_EOL = '<span class="noeol" title="no newline at the end">no final newline</span>'
_CHANGED = '<span class="chg">'


def _escape_code(char: str) -> str:
    if char == "\r":
        return "\\r"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _no_lookalike(text: str) -> bool:
    return not any(disguised(char) for char in text if not char.isascii())


@lru_cache(maxsize=4096)
def _char_html(char: str, trailing: bool) -> str:
    """One character that reads as nothing or as another (`textdiff.disguised`: U+00A0, U+FEFF,
    U+212A KELVIN SIGN), or a space or tab at the end of a line."""
    if char == " ":
        return '<span class="ws trail" title="space at end of line">·</span>' if trailing else " "
    if char == "\t":
        if trailing:
            return '<span class="tab trail" title="tab at end of line">→</span>'
        return '<span class="tab" title="tab">→</span>'
    if not disguised(char):
        return str(escape(char))
    kind = "cr" if char == "\r" else "ws"
    name = "carriage return" if char == "\r" else unicodedata.name(char, "control character")
    return str(
        Markup('<span class="{}{}" title="{} U+{:04X}">{}</span>').format(
            kind, " trail" if trailing else "", name.lower(), ord(char), _escape_code(char)
        )
    )


def _escape_run(text: str, trailing: bool) -> str:
    if not trailing and text.isprintable() and (text.isascii() or _no_lookalike(text)):
        return str(escape(text))  # the common case: one call for the whole run
    return "".join(_char_html(char, trailing) for char in text)


def line_html(
    line: Line, changed: Sequence[tuple[int, int]] = (), end: str = "", end_changed: bool = False
) -> Markup:
    """A line's text, escaped, with `changed` character spans marked and `end` after it."""
    text = line.text
    if not changed and not end_changed and not line.cut and text.isprintable():
        if not text.endswith(" "):  # the commonest line: nothing to mark
            return Markup(str(escape(text)) + end)
    trail_from = len(text.rstrip(" \t\r"))
    cuts = {0, len(text), trail_from}
    if line.cut:
        cuts.add(line.cut_at)
    for start, stop in changed:
        cuts.update((start, stop))
    bounds = sorted(c for c in cuts if 0 <= c <= len(text))
    pieces: list[str] = []
    marking = False
    span = 0  # `changed` is sorted and its spans do not overlap
    for start, stop in pairwise(bounds):
        while span < len(changed) and changed[span][1] <= start:
            span += 1
        mark = span < len(changed) and changed[span][0] <= start
        if mark != marking:
            pieces.append(_CHANGED if mark else "</span>")
            marking = mark
        if line.cut and start == line.cut_at:
            pieces.append(
                f'<span class="cut">… {line.cut:,} characters not shown (the whole line\'s '
                f"sha256 starts {line.digest[:12]}) …</span>"
            )
        pieces.append(_escape_run(text[start:stop], trailing=start >= trail_from))
    if marking and not end_changed:
        pieces.append("</span>")
        marking = False
    if end_changed and end and not marking:
        pieces.append(_CHANGED)
        marking = True
    pieces.append(end)
    if marking:
        pieces.append("</span>")
    return Markup("".join(pieces))


def line_end(line: Line, name_missing: bool) -> str:
    if line.newline:
        return _EOL
    return _NO_EOL if name_missing else ""


def note_cell(text: str) -> Cell:
    return Cell("note", None, Markup('<span class="empty">{}</span>').format(text))


def text_cells(text: str, bounds: Bounds = FULL) -> list[Cell]:
    """A text as numbered lines with its whitespace and line ends visible (head and tail only
    of a long one)."""
    if text == "":
        return [note_cell("(empty text)")]
    side = shown_side(text, "Text", bounds)
    cells = [note_cell(side.note)] if side.clipped else []
    cells += [
        Cell("same", line.number, line_html(line, end=line_end(line, False))) for line in side.head
    ]
    if gap_note(side):
        cells.append(note_cell(gap_note(side)))
        cells += [
            Cell("same", line.number, line_html(line, end=line_end(line, False)))
            for line in side.tail
        ]
    return cells
