"""The unified diff of `ctx.edit.*` computed the plain way, to check the reference's faster one.

No bound, no trimming, no pruning: every round of the forward search over every diagonal, as
`ctx.edit.myers` writes it, stopped only by `diff.max_edit`.

The common lines are those of the edit script found by Myers' greedy algorithm (1986), run
forward from the start of both texts; where a deletion and an insertion reach equally far, the
deletion is taken. Within a run of changed lines every deletion is shown before every insertion.
Lines are compared with their line end, so a last line that gains or loses its `\n` is a change,
marked as GNU diff and git mark it. The search is this module's own; the hunks it lays out are
the reference's (`render_hunks`), which the cases check.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

from ctxconf.reference.context.diff import render_hunks
from ctxconf.reference.texts import Texts

_CHUNK = 1 << 16  # characters split at a time: a text's lines are never all alive at once


def _numbered(text: str, codes: dict[str, int], unterminated: list[str]) -> list[int]:
    """`text` as one number per line: equal lines, in either text, get the same number.

    Each distinct line is kept once (as a key of `codes`), so memory grows with the distinct
    lines rather than with both texts. A last line without its `\n` never equals a line that
    has one: it is numbered below zero, from `unterminated`.
    """
    numbers: list[int] = []
    end = text.rfind("\n")  # the last line end: what follows it is a line without one
    start = 0
    while start <= end:
        cut = text.find("\n", start + _CHUNK, end)
        if cut == -1:
            cut = end
        lines = text[start:cut].split("\n")
        numbers.extend([codes.setdefault(line, len(codes)) for line in lines])
        start = cut + 1
    last = text[end + 1 :]
    if last:
        if last not in unterminated:
            unterminated.append(last)
        numbers.append(-1 - unterminated.index(last))
    return numbers


def _snake(a: list[int], b: list[int], x: int, y: int) -> int:
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


def _myers_runs(a: list[int], b: list[int], max_edit: int) -> list[tuple[int, int, int]] | None:
    """Runs (i, j, length) of the lines that the greedy forward Myers path keeps in common;
    None when the shortest edit script is longer than `max_edit` lines."""
    n, m = len(a), len(b)
    # furthest[offset + k]: how far diagonal k has reached. Round d touches only diagonals
    # -d-1..d+1, so the list grows with d instead of being sized for n + m from the start.
    offset = 1
    furthest = [0] * 3
    # Furthest x on diagonals -d+1, -d+3 .. d-1 before round d: machine integers, since these
    # snapshots hold about d * d / 2 positions, each a Python int object in a list.
    rounds: list[array[int]] = []
    found = False
    for d in range(n + m + 1):
        if d > max_edit:
            # Myers costs O((n + m) * d): past this the answer is a whole replacement instead.
            return None
        if d + 1 > offset:
            pad = [0] * offset
            furthest = [*pad, *furthest, *pad]
            offset *= 2
        rounds.append(array("q", furthest[offset - d + 1 : offset + d : 2]))
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and furthest[offset + k - 1] < furthest[offset + k + 1]):
                x = furthest[offset + k + 1]
            else:
                x = furthest[offset + k - 1] + 1
            y = x - k
            if x < n and y < m and a[x] == b[y]:
                x = _snake(a, b, x + 1, y + 1)
                y = x - k
            furthest[offset + k] = x
            if x >= n and y >= m:
                found = True
                break
        if found:
            break
    runs: list[tuple[int, int, int]] = []
    x, y = n, m
    for d in range(len(rounds) - 1, 0, -1):
        before = rounds[d]  # diagonal j at index (j + d - 1) // 2
        k = x - y
        here = (k + d) // 2  # the index of diagonal k + 1; diagonal k - 1 is just before it
        if k == -d or (k != d and before[here - 1] < before[here]):
            prev_k = k + 1
            prev_x = before[here]
        else:
            prev_k = k - 1
            prev_x = before[here - 1]
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


def unified_diff(before: str, after: str, context: int, texts: Texts, max_edit: int) -> str:
    """The hunks of the change from `before` to `after`, without file headers; "" when equal.

    When the shortest edit script is longer than `max_edit` lines, the diff is one hunk that
    deletes every old line and inserts every new one.
    """
    codes: dict[str, int] = {}
    unterminated: list[str] = []
    a = _numbered(before, codes, unterminated)
    b = _numbered(after, codes, unterminated)
    if a == b:
        return ""
    lines = list(codes)  # in the order numbered: lines[number] is the line
    del codes
    no_newline = texts.render("no_newline")
    out: list[str] = []

    def show(tag: str, numbers: Sequence[int]) -> None:
        for number in numbers:
            if number >= 0:
                out.append(tag + lines[number])
            else:
                out.append(tag + unterminated[-1 - number])
                out.append(no_newline)

    render_hunks(a, b, _myers_runs(a, b, max_edit), context, show, out)
    return "\n".join(out)
