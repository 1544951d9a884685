"""Expected beside actual as a diff, each side bounded (`report_lines`) and escaped
(`report_escape`).

`diff_view` pairs the lines of two texts with difflib and marks changed lines and, within a changed
line, the changed words; long runs of unchanged lines fold to a note. A missing final newline is
named only where the two sides differ in it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from markupsafe import Markup

from .report_escape import Cell, line_end, line_html, note_cell, text_cells
from .report_lines import (
    FULL,
    MAX_LINE_CHARS,
    MAX_SHOWN_CHARS,
    MAX_SHOWN_LINES,
    NOTHING,
    Bounds,
    Line,
    gap_note,
    lines_text,
    shown_side,
)

# Taken from here by the report and the tests, though made in the modules above.
__all__ = [
    "FULL",
    "MAX_LINE_CHARS",
    "MAX_SHOWN_CHARS",
    "MAX_SHOWN_LINES",
    "NOTHING",
    "Bounds",
    "Cell",
    "DiffRow",
    "DiffView",
    "diff_view",
    "text_cells",
]

# Beyond this many characters a changed line is marked whole: difflib's matcher is quadratic.
INTRALINE_LIMIT = 2000
# Unchanged lines kept around a change; a longer unchanged run folds to one note.
CONTEXT_LINES = 5


@dataclass(frozen=True)
class DiffRow:
    expected: Cell
    actual: Cell


@dataclass(frozen=True)
class DiffView:
    rows: list[DiffRow]
    summary: str
    notes: tuple[str, ...] = ()  # the size and sha256 of a text shown only in part

    @property
    def html_size(self) -> int:
        """Characters of markup its rows make, which a page can budget."""
        return sum(len(row.expected.html) + len(row.actual.html) for row in self.rows)


_WORD = re.compile(r"\w+|\W", re.UNICODE)


def _words(text: str) -> list[tuple[int, int]]:
    """Spans of a line: a run of letters, digits and underscores, or any other single character."""
    return [match.span() for match in _WORD.finditer(text)]


def _intraline(a: Line, b: Line) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The changed character spans of two paired lines. Words are compared whole: a changed word
    is marked whole rather than as scattered letters that happen to match."""
    if a.cut or b.cut or len(a.text) > INTRALINE_LIMIT or len(b.text) > INTRALINE_LIMIT:
        return [(0, len(a.text))], [(0, len(b.text))]
    words_a, words_b = _words(a.text), _words(b.text)
    matcher = difflib.SequenceMatcher(
        None,
        [a.text[s:e] for s, e in words_a],
        [b.text[s:e] for s, e in words_b],
        autojunk=False,
    )
    kept_a: list[tuple[int, int]] = []
    kept_b: list[tuple[int, int]] = []
    for block in matcher.get_matching_blocks():
        if block.size:
            kept_a.append((words_a[block.a][0], words_a[block.a + block.size - 1][1]))
            kept_b.append((words_b[block.b][0], words_b[block.b + block.size - 1][1]))
    return _complement(kept_a, len(a.text)), _complement(kept_b, len(b.text))


def _complement(kept: list[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    spans, position = [], 0
    for start, stop in kept:
        if start > position:
            spans.append((position, start))
        position = stop
    if position < length:
        spans.append((position, length))
    return spans


_FILLER = Cell("filler", None, Markup(""))


class _Differ:
    """Rows for pairs of line lists, naming a missing final newline only where the sides differ."""

    def __init__(self, name_missing_newline: bool) -> None:
        self.name_missing = name_missing_newline

    def cell(self, kind: str, line: Line, whole: bool) -> Cell:
        spans = [(0, len(line.text))] if whole else []
        end = line_end(line, self.name_missing)
        return Cell(kind, line.number, line_html(line, spans, end, end_changed=whole))

    def pair(self, a: Line, b: Line) -> DiffRow:
        if a.same_as(b):
            return DiffRow(self.cell("same", a, False), self.cell("same", b, False))
        spans_a, spans_b = _intraline(a, b)
        ends_differ = a.newline != b.newline
        return DiffRow(
            Cell(
                "del", a.number, line_html(a, spans_a, line_end(a, self.name_missing), ends_differ)
            ),
            Cell(
                "ins", b.number, line_html(b, spans_b, line_end(b, self.name_missing), ends_differ)
            ),
        )

    def rows(self, left: list[Line], right: list[Line]) -> Iterator[DiffRow]:
        matcher = difflib.SequenceMatcher(
            None, [line.key for line in left], [line.key for line in right], autojunk=False
        )
        for _tag, a0, a1, b0, b1 in matcher.get_opcodes():
            for offset in range(max(a1 - a0, b1 - b0)):
                i, j = a0 + offset, b0 + offset
                if i < a1 and j < b1:
                    yield self.pair(left[i], right[j])
                elif i < a1:
                    yield DiffRow(self.cell("del", left[i], True), _FILLER)
                else:
                    yield DiffRow(_FILLER, self.cell("ins", right[j], True))


def _fold_unchanged(rows: list[DiffRow], part: bool = False) -> list[DiffRow]:
    """Long runs of unchanged rows as one note, keeping `CONTEXT_LINES` beside each change; the
    head or tail of a clipped text (`part`) keeps them at its ends too, beside the gap."""
    folded: list[DiffRow] = []
    run: list[DiffRow] = []

    def flush(at_end: bool) -> None:
        keep_before = CONTEXT_LINES if folded or part else 0
        keep_after = CONTEXT_LINES if not at_end or part else 0
        if len(run) > keep_before + keep_after + 1:
            hidden = len(run) - keep_before - keep_after
            note = note_cell(f"… {lines_text(hidden)} unchanged …")
            folded.extend(run[:keep_before])
            folded.append(DiffRow(note, note))
            folded.extend(run[len(run) - keep_after :])
        else:
            folded.extend(run)
        run.clear()

    for row in rows:
        if row.expected.kind == "same" and row.actual.kind == "same":
            run.append(row)
        else:
            if run:
                flush(at_end=False)
            folded.append(row)
    if run:
        if folded or part:
            flush(at_end=True)
        else:
            folded.extend(run)  # identical texts: nothing to fold around
    return folded


def diff_view(
    expected: str, actual: str | None, bounds: Bounds = FULL, *, errored: bool = False
) -> DiffView:
    """Expected beside actual, line by line, with changed lines and words marked, each side
    within `bounds` (with NOTHING, only their sizes and sha256). `errored`: no text came for the
    step because the implementation answered it with an error (`{"error": …}`)."""
    left = shown_side(expected, "Expected text", bounds)
    missing = "an error answered, no text" if errored else "no output received"
    if bounds.lines == 0 or bounds.chars == 0:
        sides = [left] + ([] if actual is None else [shown_side(actual, "Actual text", bounds)])
        row = DiffRow(note_cell("(not shown)"), note_cell("(not shown)"))
        summary = "texts not shown" if actual is not None else f"{missing}; not shown"
        return DiffView([row], summary, tuple(s.note for s in sides if s.note))
    if actual is None:
        differ = _Differ(False)
        rows = [DiffRow(differ.cell("del", line, False), _FILLER) for line in left.head]
        if gap_note(left):
            rows.append(DiffRow(note_cell(gap_note(left)), _FILLER))
        rows += [DiffRow(differ.cell("del", line, False), _FILLER) for line in left.tail]
        rows = rows or [DiffRow(note_cell("(empty text)"), _FILLER)]
        received = "(an error instead of a text)" if errored else "(nothing received)"
        rows[0] = DiffRow(rows[0].expected, note_cell(received))
        return DiffView(rows, f"{missing} for this step", (left.note,) if left.clipped else ())
    right = shown_side(actual, "Actual text", bounds)
    differs_in_newline = (
        bool(expected) and bool(actual) and (expected.endswith("\n") != actual.endswith("\n"))
    )
    differ = _Differ(differs_in_newline)
    rows = list(differ.rows(left.head, right.head))
    clipped = left.clipped or right.clipped
    if clipped:
        tail = list(differ.rows(left.tail, right.tail))
        differing = _differing(rows) + _differing(tail)
        gaps = [note_cell(gap_note(side)) if gap_note(side) else _FILLER for side in (left, right)]
        gap = [DiffRow(*gaps)] if gap_note(left) or gap_note(right) else []
        rows = [*_fold_unchanged(rows, part=True), *gap, *_fold_unchanged(tail, part=True)]
    else:
        differing = _differing(rows)
        rows = _fold_unchanged(rows)
    if not rows:
        rows.append(DiffRow(note_cell("(empty text)"), note_cell("(empty text)")))
    if differing == 0:
        summary = "no difference among the lines shown" if clipped else "identical texts"
    else:
        summary = f"{differing:,} line differs" if differing == 1 else f"{differing:,} lines differ"
        summary += " among those shown" if clipped else ""
    notes = tuple(side.note for side in (left, right) if side.clipped)
    return DiffView(rows, summary, notes)


def _differing(rows: list[DiffRow]) -> int:
    return sum(1 for row in rows if row.expected.kind != "same" or row.actual.kind != "same")
