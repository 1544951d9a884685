"""Texts as escaped HTML with their whitespace visible, and expected beside actual as a diff.

Every character of a text reaches the page through `markupsafe.escape`; spaces at the end of a
line, tabs, carriage returns, other control characters, the end of each line and a missing final
newline each become a small marked glyph. `diff_view` pairs the lines of two texts with difflib
and marks changed lines and, within a changed line, the changed characters.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

# Beyond this many characters a changed line is marked whole: difflib's matcher is quadratic.
_INTRALINE_LIMIT = 2000


@dataclass(frozen=True)
class Cell:
    """One line of one side of a diff (or of a shown text); `html` is already escaped."""

    kind: str  # same | del | ins | filler | note
    number: int | None
    html: Markup


@dataclass(frozen=True)
class DiffRow:
    expected: Cell
    actual: Cell


@dataclass(frozen=True)
class DiffView:
    rows: list[DiffRow]
    summary: str


_NOEOL = ""  # token for the end of a last line that has no newline
# Glyphs that common monospace fonts have; other invisible characters are shown as escapes.
_TAB = Markup('<span class="tab" title="tab">→</span>')
_EOL = Markup('<span class="eol" title="end of line">↵</span>')
_NO_EOL = Markup('<span class="noeol" title="no newline at the end">no final newline</span>')


def _escape_code(char: str) -> str:
    code = ord(char)
    if char == "\r":
        return "\\r"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _char_html(char: str, trailing: bool) -> Markup:
    if char == "\n":
        return _EOL
    if char == _NOEOL:
        return _NO_EOL
    if char == " ":
        if trailing:
            return Markup('<span class="ws trail" title="space at end of line">·</span>')
        return Markup(" ")
    if char == "\t":
        return (
            Markup('<span class="tab trail" title="tab at end of line">→</span>')
            if trailing
            else _TAB
        )
    category = unicodedata.category(char)
    if category in ("Cc", "Cf", "Zl", "Zp", "Zs", "Co", "Cn"):
        kind = "cr" if char == "\r" else "ws"
        name = "carriage return" if char == "\r" else unicodedata.name(char, "control character")
        return Markup('<span class="{}{}" title="{} U+{:04X}">{}</span>').format(
            kind, " trail" if trailing else "", name.lower(), ord(char), _escape_code(char)
        )
    return escape(char)


def _split_lines(text: str) -> list[list[str]]:
    """Lines as token lists: each character, then "\\n" or the no-final-newline token."""
    if text == "":
        return []
    parts = text.split("\n")
    lines = [[*part, "\n"] for part in parts[:-1]]
    if parts[-1]:
        lines.append([*parts[-1], _NOEOL])
    return lines


def _line_html(tokens: Sequence[str], changed: Sequence[bool] | None = None) -> Markup:
    body_end = len(tokens) - 1 if tokens and tokens[-1] in ("\n", _NOEOL) else len(tokens)
    trail_from = body_end
    while trail_from > 0 and tokens[trail_from - 1] in (" ", "\t", "\r"):
        trail_from -= 1
    pieces: list[str] = []
    marking = False
    for index, token in enumerate(tokens):
        mark = bool(changed and changed[index])
        if mark != marking:
            pieces.append('<span class="chg">' if mark else "</span>")
            marking = mark
        pieces.append(_char_html(token, trailing=trail_from <= index < body_end))
    if marking:
        pieces.append("</span>")
    return Markup("".join(pieces))


def text_cells(text: str) -> list[Cell]:
    """A text as numbered lines with its whitespace and line ends visible."""
    lines = _split_lines(text)
    if not lines:
        return [Cell("note", None, Markup('<span class="empty">(empty text)</span>'))]
    return [Cell("same", number, _line_html(tokens)) for number, tokens in enumerate(lines, 1)]


def _words(tokens: list[str]) -> list[tuple[int, int]]:
    """Spans of a line's tokens: a run of letters and digits, or any other single character."""
    spans: list[tuple[int, int]] = []
    for index, token in enumerate(tokens):
        if index and _is_word(token) and _is_word(tokens[index - 1]):
            spans[-1] = (spans[-1][0], index + 1)
        else:
            spans.append((index, index + 1))
    return spans


def _is_word(token: str) -> bool:
    return bool(token) and (token.isalnum() or token == "_")


def _intraline(a: list[str], b: list[str]) -> tuple[list[bool], list[bool]]:
    # Words are compared whole: a changed word is marked whole rather than as scattered letters
    # that happen to match; whitespace and punctuation are compared character by character.
    if len(a) > _INTRALINE_LIMIT or len(b) > _INTRALINE_LIMIT:
        return [True] * len(a), [True] * len(b)
    words_a, words_b = _words(a), _words(b)
    marks_a, marks_b = [True] * len(a), [True] * len(b)
    matcher = difflib.SequenceMatcher(
        None,
        ["".join(a[start:end]) for start, end in words_a],
        ["".join(b[start:end]) for start, end in words_b],
        autojunk=False,
    )
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            start, end = words_a[block.a + offset]
            marks_a[start:end] = [False] * (end - start)
            start, end = words_b[block.b + offset]
            marks_b[start:end] = [False] * (end - start)
    return marks_a, marks_b


_FILLER = Cell("filler", None, Markup(""))


def _line_key(tokens: list[str]) -> str:
    # Lines are aligned on their text without trailing blanks and line ends, so that a text that
    # differs only there (CRLF, spaces at the end) pairs each line with its counterpart.
    return "".join(tokens).rstrip(" \t\r\n")


def _pair(a: list[str], b: list[str], i: int, j: int) -> DiffRow:
    if a == b:
        return DiffRow(Cell("same", i + 1, _line_html(a)), Cell("same", j + 1, _line_html(b)))
    marks_a, marks_b = _intraline(a, b)
    return DiffRow(
        Cell("del", i + 1, _line_html(a, marks_a)), Cell("ins", j + 1, _line_html(b, marks_b))
    )


def _empty_note(text: str) -> Cell:
    return Cell("note", None, Markup('<span class="empty">{}</span>').format(text))


def diff_view(expected: str, actual: str | None) -> DiffView:
    """Expected beside actual, line by line, with changed lines and characters marked."""
    left = _split_lines(expected)
    rows: list[DiffRow]
    if actual is None:
        rows = [DiffRow(Cell("del", n, _line_html(t)), _FILLER) for n, t in enumerate(left, 1)]
        rows = rows or [DiffRow(_empty_note("(empty text)"), _FILLER)]
        rows[0] = DiffRow(rows[0].expected, _empty_note("(nothing received)"))
        return DiffView(rows, "no output received for this step")
    right = _split_lines(actual)
    rows = []
    matcher = difflib.SequenceMatcher(
        None, [_line_key(t) for t in left], [_line_key(t) for t in right], autojunk=False
    )
    for _tag, a0, a1, b0, b1 in matcher.get_opcodes():
        for offset in range(max(a1 - a0, b1 - b0)):
            i, j = a0 + offset, b0 + offset
            if i < a1 and j < b1:
                rows.append(_pair(left[i], right[j], i, j))
            elif i < a1:
                rows.append(
                    DiffRow(Cell("del", i + 1, _line_html(left[i], [True] * len(left[i]))), _FILLER)
                )
            else:
                rows.append(
                    DiffRow(
                        _FILLER, Cell("ins", j + 1, _line_html(right[j], [True] * len(right[j])))
                    )
                )
    if not rows:
        rows.append(DiffRow(_empty_note("(empty text)"), _empty_note("(empty text)")))
    differing = sum(1 for row in rows if row.expected.kind != "same")
    if differing == 0:
        summary = "identical texts"
    else:
        summary = f"{differing} line{'s' if differing != 1 else ''} differ"
    return DiffView(rows, summary)
