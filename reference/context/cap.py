"""The output cap (`ctx.cap.*`): an output over its limits keeps a head and tail of whole lines.

The head and the tail are found by looking for line ends from each end of the text: a capped
text is never split whole, so capping costs a count of its `\n` and the few lines it keeps.
"""

from __future__ import annotations

from ..texts import Texts
from .config import Limits
from .lines import count_lines


def _head_end(text: str, end: int, max_lines: int, max_chars: int) -> tuple[int, int]:
    """The most lines from the start of text[:end] that fit both limits, joined by `\\n`
    (joining newlines counted): how many, and where the last of them ends."""
    taken = 0
    stop = 0
    # rule: ctx.cap.head-tail
    while taken < max_lines:
        line_end = text.find("\n", stop + (1 if taken else 0), end)
        line_end = end if line_end == -1 else line_end
        # rule: ctx.cap.head-tail
        if line_end > max_chars:  # the lines so far, joined, are text[:line_end]
            break
        taken += 1
        stop = line_end
        if line_end == end:
            break
    return taken, stop


def _tail_start(text: str, start: int, end: int, max_lines: int, max_chars: int) -> tuple[int, int]:
    """The same from the end of text[start:end], whose first line starts at `start`: how many
    lines, and where the first of them starts."""
    taken = 0
    begin = end + 1  # no line taken yet
    while taken < max_lines and begin > start:
        line_start = text.rfind("\n", start, begin - 1) + 1 or start
        if end - line_start > max_chars:
            break
        taken += 1
        begin = line_start
    return taken, begin


def cap_text(text: str, limits: Limits, result_id: str, texts: Texts) -> str:
    """`text` itself when within the limits, else head, elided line and tail."""
    total = count_lines(text)
    # rule: ctx.cap.over
    # rule: ctx.text.chars
    if not (total > limits.max_lines or len(text) > limits.max_chars):
        return text
    end = len(text) - 1 if text.endswith("\n") else len(text)  # the lines are text[:end]
    head_count, head_stop = _head_end(text, end, limits.head_lines, limits.head_chars)
    if head_count:
        head = text[:head_stop]
    else:
        # A first line longer than the head's characters is cut rather than dropped.
        first_end = text.find("\n", 0, end)
        head_stop = end if first_end == -1 else first_end
        # rule: ctx.cap.cut
        head = texts.render("cut", text=text[: min(head_stop, limits.head_chars)])
        head_count = 1
    tail_count, tail_start = _tail_start(
        text,
        head_stop + 1,
        end,
        min(limits.tail_lines, total - head_count),
        limits.tail_chars,
    )
    # rule: ctx.cap.elided
    elided = total - head_count - tail_count
    marker = texts.render("elided", count=elided, id=result_id)
    if not tail_count:
        return f"{head}\n{marker}"
    return f"{head}\n{marker}\n{text[tail_start:end]}"
