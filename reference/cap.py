"""The output cap (`ctx.cap.*`): an output over its limits keeps a head and tail of whole lines."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice

from .config import Limits, Texts
from .lines import count_lines, split_lines


def is_over(text: str, limits: Limits) -> bool:
    return count_lines(text) > limits.max_lines or len(text) > limits.max_chars


def _fitting(lines: Iterable[str], max_lines: int, max_chars: int) -> int:
    """How many of `lines`, taken in order and joined by `\n`, fit both limits."""
    used = -1  # the first line brings no joining newline
    taken = 0
    for line in islice(lines, max_lines):
        used += len(line) + 1
        if used > max_chars:
            break
        taken += 1
    return taken


def cap_text(text: str, limits: Limits, result_id: str, texts: Texts) -> str:
    """`text` itself when within the limits, else head, elided line and tail."""
    if not is_over(text, limits):
        return text
    lines = split_lines(text)
    head_count = _fitting(lines, limits.head_lines, limits.head_chars)
    if head_count:
        head = lines[:head_count]
    else:
        # A first line longer than the head's characters is cut rather than dropped.
        head = [texts.render("cut", text=lines[0][: limits.head_chars])]
        head_count = 1
    after_head = len(lines) - head_count
    from_end = (lines[i] for i in range(len(lines) - 1, head_count - 1, -1))
    tail_count = min(after_head, _fitting(from_end, limits.tail_lines, limits.tail_chars))
    tail = lines[len(lines) - tail_count :] if tail_count else []
    elided = len(lines) - head_count - tail_count
    marker = texts.render("elided", count=elided, id=result_id)
    return "\n".join([*head, marker, *tail])
