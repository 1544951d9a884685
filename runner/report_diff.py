"""Texts as escaped HTML with their whitespace visible, and expected beside actual as a diff.

What reaches the page is bounded by what is shown, not by what an implementation sent: a text
longer than `MAX_SHOWN_LINES` lines or `MAX_SHOWN_CHARS` characters shows its head and its tail,
with its full size and sha256 (the whole text stays in the results file); a line longer than
`MAX_LINE_CHARS` shows its start and end; long runs of unchanged lines fold to a note.

Every character reaches the page through `markupsafe.escape`, a run of ordinary characters at a
time; spaces at the end of a line, tabs, carriage returns and other invisible characters each
become a small marked glyph, and so does the end of each line. A missing final newline is named
only where the two sides differ in it. `diff_view` pairs the lines of two texts with difflib and
marks changed lines and, within a changed line, the changed words.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from markupsafe import Markup, escape

# Per side of a diff (or per shown text): beyond either, only its head and tail are shown.
MAX_SHOWN_LINES = 2000
MAX_SHOWN_CHARS = 200_000
# A longer line shows its first and last halves of this many characters.
MAX_LINE_CHARS = 4000
# Beyond this many characters a changed line is marked whole: difflib's matcher is quadratic.
INTRALINE_LIMIT = 2000
# Unchanged lines kept around a change; a longer unchanged run folds to one note.
CONTEXT_LINES = 5


@dataclass(frozen=True)
class Bounds:
    """How much of one text is shown: at most `lines` lines and about `chars` characters."""

    lines: int
    chars: int


FULL = Bounds(MAX_SHOWN_LINES, MAX_SHOWN_CHARS)
NOTHING = Bounds(0, 0)  # only the text's size and sha256


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
    notes: tuple[str, ...] = ()  # the size and sha256 of a text shown only in part

    @property
    def html_size(self) -> int:
        """Characters of markup its rows make, which a page can budget."""
        return sum(len(row.expected.html) + len(row.actual.html) for row in self.rows)


# ---------------------------------------------------------------- lines, bounded


@dataclass(frozen=True)
class _Line:
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

    def same_as(self, other: _Line) -> bool:
        return (self.text, self.newline, self.cut, self.digest) == (
            other.text,
            other.newline,
            other.cut,
            other.digest,
        )


def _make_line(number: int, text: str, start: int, end: int, newline: bool) -> _Line:
    """The line `text[start:end]`, its middle left out when it is long (never copied whole)."""
    if end - start <= MAX_LINE_CHARS:
        return _Line(number, text[start:end], newline, 0, 0, "")
    half = MAX_LINE_CHARS // 2
    _, digest = _size_and_digest(text, start, end)
    shown = text[start : start + half] + text[end - half : end]
    return _Line(number, shown, newline, half, end - start - 2 * half, digest)


@dataclass(frozen=True)
class _Side:
    """A text's shown lines: all of them, or a head and a tail with what lies between named."""

    head: list[_Line]
    tail: list[_Line]
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


def _forward(text: str, stop: int, lines: int, chars: int) -> tuple[list[_Line], int]:
    """Lines from the start of `text` (not past `stop`) within the budgets, and where they end."""
    found: list[_Line] = []
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


def _backward(text: str, start: int, lines: int, chars: int, total: int) -> list[_Line]:
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


def _side(text: str, what: str, bounds: Bounds) -> _Side:
    total = _line_count(text)
    if total <= bounds.lines and len(text) <= bounds.chars:
        lines, _ = _forward(text, len(text), total, len(text) + total + 1)
        return _Side(lines, [], total, "")
    half_lines, half_chars = bounds.lines // 2, bounds.chars // 2
    head, head_end = _forward(text, len(text), half_lines, half_chars)
    tail = _backward(text, head_end, half_lines, half_chars, total)
    size, digest = _size_and_digest(text)
    shown = f"its first {_lines(len(head))}" if head else "none of it"
    shown += f" and last {_lines(len(tail))}" if tail else ""
    note = (
        f"{what}: {_lines(total)}, {_size(size)}, sha256 {digest}; shown: {shown}. "
        "The whole text is in the results file."
    )
    return _Side(head, tail, total, note)


def _lines(count: int) -> str:
    return f"{count:,} line{'' if count == 1 else 's'}"


def _size(size: int) -> str:
    if size < 1000:
        return f"{size} byte{'' if size == 1 else 's'}"
    unit, scale = ("MB", 1_000_000) if size >= 1_000_000 else ("kB", 1000)
    return f"{size / scale:,.1f} {unit} ({size:,} bytes)"


# ---------------------------------------------------------------- escaping


_EOL = '<span class="eol">↵</span>'  # the commonest glyph: the page's legend explains it
_NO_EOL = '<span class="noeol" title="no newline at the end">no final newline</span>'
_CHANGED = '<span class="chg">'


def _escape_code(char: str) -> str:
    if char == "\r":
        return "\\r"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


@lru_cache(maxsize=4096)
def _char_html(char: str, trailing: bool) -> str:
    """One character that `str.isprintable` refuses, or a space or tab at the end of a line."""
    if char == " ":
        return '<span class="ws trail" title="space at end of line">·</span>' if trailing else " "
    if char == "\t":
        if trailing:
            return '<span class="tab trail" title="tab at end of line">→</span>'
        return '<span class="tab" title="tab">→</span>'
    if char.isprintable():
        return str(escape(char))
    kind = "cr" if char == "\r" else "ws"
    name = "carriage return" if char == "\r" else unicodedata.name(char, "control character")
    return str(
        Markup('<span class="{}{}" title="{} U+{:04X}">{}</span>').format(
            kind, " trail" if trailing else "", name.lower(), ord(char), _escape_code(char)
        )
    )


def _escape_run(text: str, trailing: bool) -> str:
    if not trailing and text.isprintable():
        return str(escape(text))  # the common case: one call for the whole run
    return "".join(_char_html(char, trailing) for char in text)


def _line_html(
    line: _Line, changed: Sequence[tuple[int, int]] = (), end: str = "", end_changed: bool = False
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


def _end(line: _Line, name_missing: bool) -> str:
    if line.newline:
        return _EOL
    return _NO_EOL if name_missing else ""


def _note(text: str) -> Cell:
    return Cell("note", None, Markup('<span class="empty">{}</span>').format(text))


def text_cells(text: str, bounds: Bounds = FULL) -> list[Cell]:
    """A text as numbered lines with its whitespace and line ends visible (head and tail only
    of a long one)."""
    if text == "":
        return [_note("(empty text)")]
    side = _side(text, "Text", bounds)
    cells = [_note(side.note)] if side.clipped else []
    cells += [
        Cell("same", line.number, _line_html(line, end=_end(line, False))) for line in side.head
    ]
    if _gap(side):
        cells.append(_note(_gap(side)))
        cells += [
            Cell("same", line.number, _line_html(line, end=_end(line, False))) for line in side.tail
        ]
    return cells


def _gap(side: _Side) -> str:
    """The note between a clipped text's head and tail ("" when no whole line is left out)."""
    left_out = side.total_lines - len(side.head) - len(side.tail)
    first = len(side.head) + 1
    if left_out <= 0:
        return ""
    return f"… {_lines(left_out)} not shown (lines {first:,} to {first + left_out - 1:,}) …"


# ---------------------------------------------------------------- the diff


_WORD = re.compile(r"\w+|\W", re.UNICODE)


def _words(text: str) -> list[tuple[int, int]]:
    """Spans of a line: a run of letters, digits and underscores, or any other single character."""
    return [match.span() for match in _WORD.finditer(text)]


def _intraline(a: _Line, b: _Line) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
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

    def cell(self, kind: str, line: _Line, whole: bool) -> Cell:
        spans = [(0, len(line.text))] if whole else []
        end = _end(line, self.name_missing)
        return Cell(kind, line.number, _line_html(line, spans, end, end_changed=whole))

    def pair(self, a: _Line, b: _Line) -> DiffRow:
        if a.same_as(b):
            return DiffRow(self.cell("same", a, False), self.cell("same", b, False))
        spans_a, spans_b = _intraline(a, b)
        ends_differ = a.newline != b.newline
        return DiffRow(
            Cell("del", a.number, _line_html(a, spans_a, _end(a, self.name_missing), ends_differ)),
            Cell("ins", b.number, _line_html(b, spans_b, _end(b, self.name_missing), ends_differ)),
        )

    def rows(self, left: list[_Line], right: list[_Line]) -> Iterator[DiffRow]:
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
            note = _note(f"… {_lines(hidden)} unchanged …")
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


def diff_view(expected: str, actual: str | None, bounds: Bounds = FULL) -> DiffView:
    """Expected beside actual, line by line, with changed lines and words marked, each side
    within `bounds` (with NOTHING, only their sizes and sha256)."""
    left = _side(expected, "Expected text", bounds)
    if bounds.lines == 0 or bounds.chars == 0:
        sides = [left] + ([] if actual is None else [_side(actual, "Actual text", bounds)])
        row = DiffRow(_note("(not shown)"), _note("(not shown)"))
        summary = "texts not shown" if actual is not None else "no output received; not shown"
        return DiffView([row], summary, tuple(s.note for s in sides if s.note))
    if actual is None:
        differ = _Differ(False)
        rows = [DiffRow(differ.cell("del", line, False), _FILLER) for line in left.head]
        if _gap(left):
            rows.append(DiffRow(_note(_gap(left)), _FILLER))
        rows += [DiffRow(differ.cell("del", line, False), _FILLER) for line in left.tail]
        rows = rows or [DiffRow(_note("(empty text)"), _FILLER)]
        rows[0] = DiffRow(rows[0].expected, _note("(nothing received)"))
        return DiffView(
            rows, "no output received for this step", (left.note,) if left.clipped else ()
        )
    right = _side(actual, "Actual text", bounds)
    differs_in_newline = (
        bool(expected) and bool(actual) and (expected.endswith("\n") != actual.endswith("\n"))
    )
    differ = _Differ(differs_in_newline)
    rows = list(differ.rows(left.head, right.head))
    clipped = left.clipped or right.clipped
    if clipped:
        tail = list(differ.rows(left.tail, right.tail))
        differing = _differing(rows) + _differing(tail)
        gaps = [_note(_gap(side)) if _gap(side) else _FILLER for side in (left, right)]
        gap = [DiffRow(*gaps)] if _gap(left) or _gap(right) else []
        rows = [*_fold_unchanged(rows, part=True), *gap, *_fold_unchanged(tail, part=True)]
    else:
        differing = _differing(rows)
        rows = _fold_unchanged(rows)
    if not rows:
        rows.append(DiffRow(_note("(empty text)"), _note("(empty text)")))
    if differing == 0:
        summary = "no difference among the lines shown" if clipped else "identical texts"
    else:
        summary = f"{differing:,} line{'s' if differing != 1 else ''} differ"
        summary += " among those shown" if clipped else ""
    notes = tuple(side.note for side in (left, right) if side.clipped)
    return DiffView(rows, summary, notes)


def _differing(rows: list[DiffRow]) -> int:
    return sum(1 for row in rows if row.expected.kind != "same" or row.actual.kind != "same")
