"""The unified diff an edit answers with (`ctx.edit.*`).

The common lines are those of the edit script found by Myers' greedy algorithm (1986), run
forward from the start of both texts; where a deletion and an insertion reach equally far, the
deletion is taken. Within a run of changed lines every deletion is shown before every insertion.
Lines are compared with their line end, so a last line that gains or loses its `\n` is a change,
marked as GNU diff and git mark it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .config import Texts


def _lines_with_ends(text: str) -> list[str]:
    lines = text.split("\n")
    last = lines.pop()
    with_ends = [line + "\n" for line in lines]
    if last:
        with_ends.append(last)
    return with_ends


def _myers_matches(a: list[int], b: list[int]) -> list[tuple[int, int]]:
    """Index pairs (i, j) of the lines that the greedy forward Myers path keeps in common."""
    n, m = len(a), len(b)
    offset = n + m + 1
    furthest = [0] * (2 * offset + 1)
    rounds: list[list[int]] = []  # furthest x on diagonals -d..d, as they stood before round d
    found = False
    for d in range(n + m + 1):
        rounds.append(furthest[offset - d : offset + d + 1])
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and furthest[offset + k - 1] < furthest[offset + k + 1]):
                x = furthest[offset + k + 1]
            else:
                x = furthest[offset + k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            furthest[offset + k] = x
            if x >= n and y >= m:
                found = True
                break
        if found:
            break
    matches: list[tuple[int, int]] = []
    x, y = n, m
    for d in range(len(rounds) - 1, 0, -1):
        before = rounds[d]  # index k + d
        k = x - y
        if k == -d or (k != d and before[k - 1 + d] < before[k + 1 + d]):
            prev_k = k + 1
        else:
            prev_k = k - 1
        prev_x = before[prev_k + d]
        prev_y = prev_x - prev_k
        start_x, start_y = (prev_x, prev_y + 1) if prev_k == k + 1 else (prev_x + 1, prev_y)
        while x > start_x and y > start_y:
            x -= 1
            y -= 1
            matches.append((x, y))
        x, y = prev_x, prev_y
    while x > 0 and y > 0:
        x -= 1
        y -= 1
        matches.append((x, y))
    matches.reverse()
    return matches


@dataclass(frozen=True)
class _Op:
    tag: str  # " ", "-" or "+"
    line: str


def _ops(a: list[str], b: list[str]) -> list[_Op]:
    codes: dict[str, int] = {}
    a_codes = [codes.setdefault(line, len(codes)) for line in a]
    b_codes = [codes.setdefault(line, len(codes)) for line in b]
    ops: list[_Op] = []
    i = j = 0
    for mi, mj in [*_myers_matches(a_codes, b_codes), (len(a), len(b))]:
        ops.extend(_Op("-", line) for line in a[i:mi])
        ops.extend(_Op("+", line) for line in b[j:mj])
        if mi < len(a):
            ops.append(_Op(" ", a[mi]))
        i, j = mi + 1, mj + 1
    return ops


def _hunk_spans(ops: list[_Op], context: int) -> Iterator[tuple[int, int]]:
    """[start, end) spans of `ops` that make one hunk each."""
    changed = [index for index, op in enumerate(ops) if op.tag != " "]
    start = max(0, changed[0] - context)
    end = changed[0] + 1
    for index in changed[1:]:
        if index - end > 2 * context:
            yield start, min(len(ops), end + context)
            start = index - context
        end = index + 1
    yield start, min(len(ops), end + context)


def _range(start: int, count: int) -> str:
    # `start` is how many lines precede the hunk; an empty range names the line before it.
    if count == 1:
        return str(start + 1)
    return f"{start + 1 if count else start},{count}"


def unified_diff(before: str, after: str, context: int, texts: Texts) -> str:
    """The hunks of the change from `before` to `after`, without file headers; "" when equal."""
    a, b = _lines_with_ends(before), _lines_with_ends(after)
    if a == b:
        return ""
    ops = _ops(a, b)
    out: list[str] = []
    old_line = new_line = 0
    position = 0
    for start, end in _hunk_spans(ops, context):
        for op in ops[position:start]:
            old_line += op.tag != "+"
            new_line += op.tag != "-"
        hunk = ops[start:end]
        old_count = sum(op.tag != "+" for op in hunk)
        new_count = sum(op.tag != "-" for op in hunk)
        out.append(f"@@ -{_range(old_line, old_count)} +{_range(new_line, new_count)} @@")
        for op in hunk:
            out.append(op.tag + op.line.removesuffix("\n"))
            if not op.line.endswith("\n"):
                out.append(texts.render("no_newline"))
            old_line += op.tag != "+"
            new_line += op.tag != "-"
        position = end
    return "\n".join(out)
