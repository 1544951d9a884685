"""The unified diff an edit answers with (`ctx.edit.*`).

The search is the plain one's, shortened where a bound proves the rest cannot matter: the
common start is skipped, an edit longer than `diff.max_edit` is recognised from the lines the
texts share before any search, and the search leaves out the points from which the end lies
further than a known script's length. Its output is the plain search's, byte for byte.

The common lines are those of the edit script found by Myers' greedy algorithm (1986), run
forward from the start of both texts; where a deletion and an insertion reach equally far, the
deletion is taken. Within a run of changed lines every deletion is shown before every insertion.
Lines are compared with their line end, so a last line that gains or loses its `\n` is a change,
marked as GNU diff and git mark it.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import compress, count, islice
from operator import eq, itemgetter, not_, sub
from typing import TypeVar

from ..texts import Texts

_Line = TypeVar("_Line")  # a line as each caller holds it: its text, or its number

_CHUNK = 1 << 16  # characters of a text split into lines at a time
# What a list reads as past its end: an object equal to no line.
_PAST_A, _PAST_B = object(), object()


def _lines(text: str) -> list[str]:
    """The lines of `text` without their `\n`, except that a last line without one gets one.

    No other line holds a `\n`, so a last line without its line end never equals a line with
    one, however alike they read: the line end is part of what is compared.
    """
    lines = text.split("\n")
    last = lines.pop()
    if last:
        lines.append(last + "\n")
    return lines


def _lines_like(text: str, known: dict[str, str]) -> list[str]:
    """`_lines(text)`, each line that is in `known` as the object there: an edit keeps most
    lines, whose copies are then freed (a chunk of the text at a time, so they are never all
    alive at once), and comparing them is a check of identity."""
    lines: list[str] = []
    start = 0
    while start < len(text):
        cut = text.find("\n", start + _CHUNK)
        cut = len(text) if cut == -1 else cut + 1  # chunks end after a line end
        chunk = _lines(text[start:cut])
        lines += map(known.get, chunk, chunk)
        start = cut
    return lines


def _snake(a: Sequence[object], b: Sequence[object], x: int, y: int) -> int:
    """How far `x` gets along its diagonal from (x, y) while the lines agree.

    Slices compare in C: the step doubles while they agree, then halves down to one line, so a
    long run of common lines costs a few comparisons of slices rather than a loop per line.
    """
    n, m = len(a), len(b)
    step = 1
    growing = True
    while step:
        if x + step <= n and y + step <= m and a[x : x + step] == b[y : y + step]:
            x += step
            y += step
            if growing:
                step *= 2
        else:
            growing = False
            step //= 2
    return x


def edit_lower_bound(a: Sequence[object], b: Sequence[object]) -> int:
    """A length no edit script from `a` to `b` is shorter than.

    A line of `a` can be kept only where `b` has a line like it, so at most `shared` lines are
    kept and the others of both lists are deleted or inserted. The counting runs in C.
    """
    shared = sum(map(dict.fromkeys(b).__contains__, a))  # keys: smaller than a set
    return len(a) + len(b) - 2 * shared


def some_edit_length(a: Sequence[object], b: Sequence[object], limit: int, effort: int) -> int:
    """The length of an edit script from `a` to `b`, found by walking both lists and, where
    they part, taking the nearest pair of like lines ahead: never shorter than the shortest one.
    More than `limit` when it passes `limit`, or when the walk has compared about `effort`
    pairs of lines (a rewrite so long that the walk would cost what it saves)."""
    n, m = len(a), len(b)
    x = y = edits = 0
    looked = 0
    while True:
        moved = _snake(a, b, x, y)
        x, y = moved, y + moved - x
        if x == n or y == m:
            return edits + (n - x) + (m - y)
        # The nearest like pair ahead: `ahead` lines in all, `skip` of them from `a`.
        for ahead in range(1, limit - edits + 1):
            looked += ahead + 1
            if looked > effort:
                return limit + 1
            for skip in range(max(0, ahead - (m - y)), min(ahead, n - x) + 1):
                if (
                    a[x + skip] == b[y + ahead - skip]
                    if x + skip < n and y + ahead - skip < m
                    else x + skip == n and y + ahead - skip == m
                ):
                    break
            else:
                continue
            x, y = x + skip, y + ahead - skip
            edits += ahead
            break
        else:
            return limit + 1


def _myers_runs(
    a: Sequence[object], b: Sequence[object], max_edit: int
) -> list[tuple[int, int, int]] | None:
    """Runs (i, j, length) of the lines that the greedy forward Myers path keeps in common;
    None when the shortest edit script is longer than `max_edit` lines."""
    # Round 0 runs along the common start; skipping it first leaves every later round the same,
    # shifted. (Not so the common end: the forward search's ties would then fall elsewhere.)
    # rule: ctx.edit.max-edit
    start = _snake(a, b, 0, 0)
    # Copies past the common start, the search's own (it marks their ends).
    rest_a: list[object] = list(islice(a, start, None))
    rest_b: list[object] = list(islice(b, start, None))
    a, b = rest_a, rest_b
    # No shortest script is longer than one that is known: the search may leave out every
    # diagonal from which the end lies further than that. A few changes are walked past
    # cheaply; a rewrite soon makes the walk give up.
    known = some_edit_length(a, b, max_edit, effort=len(a) + len(b))
    if known <= max_edit:
        runs = _search(a, b, known)
    else:
        least = edit_lower_bound(a, b)
        if least > max_edit:
            # Myers costs O((n + m) * d): proven too long, the search is not even begun.
            return None
        if least == len(a) + len(b):
            runs = []  # nothing in common: every line is deleted or inserted
        else:
            known = some_edit_length(a, b, max_edit, effort=max_edit * max_edit // 8)
            runs = _search(a, b, min(max_edit, known))
    if runs is None:
        return None
    shifted = [(i + start, j + start, length) for i, j, length in runs]
    return [(0, 0, start), *shifted] if start else shifted


def _search(a: list[object], b: list[object], bound: int) -> list[tuple[int, int, int]] | None:
    """`_myers_runs` of two lists that differ in their first line (or one of them is empty),
    searching only the points from which the end may be at most `bound` edits away.

    A point left out counts as never reached, so the points kept reach no further than the
    plain search's. The path found is the same, and so is every choice along it: its points lie
    within the bound, so none is left out, and where it took one neighbour over the other, the
    other (left out or not) reaches no further than in the plain search.
    """
    n, m = len(a), len(b)
    delta = n - m  # the diagonal of the end
    # Where the lines that cannot be kept are; worth finding for a long search only.
    alone = None
    if bound * bound > n + m:
        alone = _alone(a, b), _alone(b, a)
    # Past its end each list (the search's own copy) reads as a marker equal to nothing in the
    # other: a round compares every diagonal's next pair of lines at once, a point may lie up
    # to a round per diagonal beyond an end, and no run of common lines passes an end.
    a += [_PAST_A] * (bound + 2)
    b += [_PAST_B] * (bound + 2)
    # How far each diagonal low, low + 2 .. of round d has reached; round 0 has diagonal 0.
    reached = [_snake(a, b, 0, 0)]
    low = 0
    # Each round's `low` and `reached` before it, for the trace: machine integers, since these
    # snapshots hold up to d * d / 2 positions, each a Python int object in a list.
    rounds: list[tuple[int, array[int]]] = [(0, array("q"))]
    if n == m == reached[0]:
        return _trace(rounds, n, m)
    for d in range(1, min(bound, n + m) + 1):  # by round n + m the search has always arrived
        rounds.append((low, array("q", reached)))
        # The diagonals next to those reached, and only those from which the end may lie
        # within the bound: diagonal k is at least d + |k - delta| edits from it.
        spare = bound - d
        first = max(low - 1, -d, delta - spare)
        first += (first + d) % 2  # diagonals of round d have the parity of d
        last = min(low + 2 * len(reached) - 1, d, delta + spare)
        last -= (last + d) % 2
        if first > last:
            return None
        # Diagonal k takes the further of a step down from k + 1 and a step right from k - 1,
        # the step right on a tie. Past either end of the last round's diagonals a -1 stands
        # for "never reached", so a diagonal there takes its one step from the other side.
        padded = [-1, *reached, -1]  # diagonals low - 2, low, .. of round d - 1
        at = (first - low + 1) // 2  # where diagonal first - 1 is in `padded`
        count_now = (last - first) // 2 + 1
        # rule: ctx.edit.myers
        reached = [
            down if right < down else right + 1
            for right, down in zip(
                padded[at : at + count_now], padded[at + 1 : at + 1 + count_now], strict=True
            )
        ]
        ys = [*map(sub, reached, range(first, last + 1, 2))]
        agree = map(eq, _pick(reached, a), _pick(ys, b))
        for index in compress(count(), agree):
            reached[index] = _snake(a, b, reached[index] + 1, ys[index] + 1)
        # Only the end's diagonal can reach both ends (a point off the grid is one step past
        # one end only, and a step back from the other).
        if first <= delta <= last and (d - delta) % 2 == 0 and reached[(delta - first) // 2] >= n:
            return _trace(rounds, n, m)
        low = first
        if alone is not None:
            reached, low = _within(reached, low, d, bound, n, m, *alone)
            if not reached:
                return None
    return None


def _alone(lines: list[object], other: list[object]) -> list[int]:
    """Where the lines of `lines` are that have no like line in `other`: never kept."""
    # A dict's keys, not a set: a set's table takes four times the memory for as many lines.
    return list(compress(count(), map(not_, map(dict.fromkeys(other).__contains__, lines))))


def _within(
    reached: list[int],
    low: int,
    d: int,
    bound: int,
    n: int,
    m: int,
    alone_a: list[int],
    alone_b: list[int],
) -> tuple[list[int], int]:
    """The round's points without those at either end of its diagonals from which the end
    lies provably further than the bound: every line left is deleted or inserted, but those
    that have a like line in the other text may be kept, as many as the other has left."""

    def too_far(index: int) -> bool:
        x = reached[index]
        y = x - low - 2 * index
        # Lines left that may be kept: those left, but for the lines with no like line.
        kept_a = (n - x) - (len(alone_a) - bisect_left(alone_a, x))
        kept_b = (m - y) - (len(alone_b) - bisect_left(alone_b, y))
        return d + (n - x) + (m - y) - 2 * max(0, min(kept_a, kept_b)) > bound

    start, stop = 0, len(reached)
    while start < stop and too_far(start):
        start += 1
    while stop > start and too_far(stop - 1):
        stop -= 1
    return reached[start:stop], low + 2 * start


def _pick(indexes: list[int], values: list[object]) -> tuple[object, ...]:
    """values[i] for each i, in C."""
    if len(indexes) == 1:
        return (values[indexes[0]],)
    picked: tuple[object, ...] = itemgetter(*indexes)(values)
    return picked


def _trace(rounds: list[tuple[int, array[int]]], n: int, m: int) -> list[tuple[int, int, int]]:
    """The common runs of the path that reached (n, m) in the last of `rounds`, traced back
    with the choices the search made."""

    def furthest(before: array[int], low: int, k: int) -> int:
        # A diagonal the search left out of that round was never reached, as it counted it.
        index = (k - low) // 2
        return before[index] if 0 <= index < len(before) else -1

    runs: list[tuple[int, int, int]] = []
    x, y = n, m
    for d in range(len(rounds) - 1, 0, -1):
        low, before = rounds[d]  # diagonal j of round d - 1 at index (j - low) // 2
        k = x - y
        if k == -d or (k != d and furthest(before, low, k - 1) < furthest(before, low, k + 1)):
            prev_k = k + 1
        else:
            prev_k = k - 1
        prev_x = furthest(before, low, prev_k)
        prev_y = prev_x - prev_k
        start_x, start_y = (prev_x, prev_y + 1) if prev_k == k + 1 else (prev_x + 1, prev_y)
        length = min(x - start_x, y - start_y)
        if length > 0:
            runs.append((x - length, y - length, length))
        x, y = prev_x, prev_y
    length = min(x, y)
    if length > 0:
        runs.append((x - length, y - length, length))
    runs.reverse()
    return runs


@dataclass(frozen=True)
class _Block:
    """One change: lines [i0, i1) of the old text give way to lines [j0, j1) of the new."""

    i0: int
    i1: int
    j0: int
    j1: int


def _blocks(runs: list[tuple[int, int, int]], n: int, m: int) -> list[_Block]:
    """The changes between the common runs, in order."""
    blocks: list[_Block] = []
    i = j = 0
    for x, y, length in [*runs, (n, m, 0)]:
        if x > i or y > j:
            blocks.append(_Block(i, x, j, y))
        i, j = x + length, y + length
    return blocks


def _hunks(blocks: list[_Block], context: int) -> Iterator[list[_Block]]:
    """The changes each hunk shows: those at most 2 * context common lines apart."""
    group = [blocks[0]]
    for block in blocks[1:]:
        # rule: ctx.edit.hunks
        if block.i0 - group[-1].i1 > 2 * context:
            yield group
            group = []
        group.append(block)
    yield group


def _range(start: int, count: int) -> str:
    # `start` is how many lines precede the hunk; an empty range names the line before it.
    # rule: ctx.edit.hunks
    if count == 1:
        return str(start + 1)
    return f"{start + 1 if count else start},{count}"


def unified_diff(before: str, after: str, context: int, texts: Texts, max_edit: int) -> str:
    """The hunks of the change from `before` to `after`, without file headers; "" when equal.

    When the shortest edit script is longer than `max_edit` lines, the diff is one hunk that
    deletes every old line and inserts every new one.
    """
    a = _lines(before)
    b = _lines_like(after, dict(zip(a, a, strict=True)))
    if a == b:
        return ""
    no_newline = texts.render("no_newline")
    out: list[str] = []

    def show(tag: str, lines: Sequence[str]) -> None:
        for line in lines:
            if line.endswith("\n"):
                out.append(tag + line[:-1])
                # rule: ctx.edit.no-newline
                out.append(no_newline)
            else:
                out.append(tag + line)

    render_hunks(a, b, _myers_runs(a, b, max_edit), context, show, out)
    return "\n".join(out)


def render_hunks(
    a: Sequence[_Line],
    b: Sequence[_Line],
    runs: list[tuple[int, int, int]] | None,
    context: int,
    show: Callable[[str, Sequence[_Line]], None],
    out: list[str],
) -> None:
    """Each hunk of the change from `a` to `b`: its header appended to `out`, its lines given to
    `show` with their tag. `runs` are the common runs (x, y, length) of an edit script; None, one
    change replacing every line."""
    blocks = [_Block(0, len(a), 0, len(b))] if runs is None else _blocks(runs, len(a), len(b))
    groups = list(_hunks(blocks, context))
    for index, group in enumerate(groups):
        first, last = group[0], group[-1]
        before_end = groups[index - 1][-1].i1 if index else 0
        after_start = groups[index + 1][0].i0 if index + 1 < len(groups) else len(a)
        lead = min(context, first.i0 - before_end)
        trail = min(context, after_start - last.i1)
        old_start, new_start = first.i0 - lead, first.j0 - lead
        old_count = last.i1 + trail - old_start
        new_count = last.j1 + trail - new_start
        out.append(f"@@ -{_range(old_start, old_count)} +{_range(new_start, new_count)} @@")
        common_from = old_start
        for block in group:
            show(" ", a[common_from : block.i0])
            # rule: ctx.edit.myers
            show("-", a[block.i0 : block.i1])
            show("+", b[block.j0 : block.j1])
            common_from = block.i1
        show(" ", a[common_from : common_from + trail])
