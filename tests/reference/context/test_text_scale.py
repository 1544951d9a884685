"""The cap, a read's window and a recall find their lines without splitting the whole text;
what they show is exactly what splitting it would show. Chunks are made tiny here, so that every
line end falls near a chunk's edge somewhere."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from itertools import islice

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxconf.reference import ContextConfig, Limits, Session
from ctxconf.reference.context import lines as lines_module
from ctxconf.reference.context.cap import cap_text
from ctxconf.reference.context.lines import LineIndex, line_window, nth_newline, split_lines

TEXTS = ContextConfig.load().texts
CHECK = settings(max_examples=400, deadline=None, derandomize=True, database=None)

texts = st.text(alphabet="ab\n\r é", max_size=60)
limits = st.builds(
    Limits,
    max_lines=st.integers(0, 8),
    max_chars=st.integers(0, 40),
    head_lines=st.integers(0, 5),
    head_chars=st.integers(0, 20),
    tail_lines=st.integers(0, 4),
    tail_chars=st.integers(0, 12),
)


@pytest.fixture(autouse=True)
def tiny_chunks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(lines_module, "_CHUNK", 8)
    monkeypatch.setattr(lines_module, "_SCAN", 2)
    yield


def _fitting(lines: list[str], max_lines: int, max_chars: int) -> int:
    used, taken = -1, 0
    for line in islice(lines, max_lines):
        used += len(line) + 1
        if used > max_chars:
            break
        taken += 1
    return taken


def split_cap(text: str, limits: Limits, result_id: str) -> str:
    """`ctx.cap.*` over the text split into its lines, as the spec words it."""
    lines = split_lines(text)
    if len(lines) <= limits.max_lines and len(text) <= limits.max_chars:
        return text
    head_count = _fitting(lines, limits.head_lines, limits.head_chars)
    head = lines[:head_count]
    if not head_count:
        head, head_count = [TEXTS.render("cut", text=lines[0][: limits.head_chars])], 1
    after = lines[head_count:]
    tail_count = _fitting(after[::-1], limits.tail_lines, limits.tail_chars)
    tail = after[len(after) - tail_count :]
    marker = TEXTS.render("elided", count=len(lines) - head_count - tail_count, id=result_id)
    return "\n".join([*head, marker, *tail])


@CHECK
@given(texts, limits)
def test_the_cap_is_that_of_the_split_text(text: str, cap: Limits) -> None:
    assert cap_text(text, cap, "#0001", TEXTS) == split_cap(text, cap, "#0001")


@CHECK
@given(texts, st.integers(1, 12), st.integers(0, 12))
def test_a_window_is_that_of_the_split_text(text: str, first: int, more: int) -> None:
    lines = split_lines(text)
    if first > len(lines):
        return
    last = min(len(lines), first + more)
    assert line_window(text, first, last) == lines[first - 1 : last]
    index = LineIndex(text)
    assert index.total == len(lines)
    assert index.window(first, last) == "\n".join(lines[first - 1 : last])


@CHECK
@given(texts, st.integers(1, 30))
def test_the_nth_line_end_is_found_or_not(text: str, n: int) -> None:
    ends = [at for at, char in enumerate(text) if char == "\n"]
    want = ends[n - 1] if n <= len(ends) else -1
    assert nth_newline(text, n) == want
    assert LineIndex(text).newline(n) == want


def test_capping_a_long_output_holds_little_beside_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lines_module, "_CHUNK", 1 << 16)
    text = "".join(f"{i:049d}\n" for i in range(100_000))  # 5 MB
    session = Session()
    tracemalloc.start()
    try:
        capped = session.output("bash", {"command": "make"}, text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "lines elided" in capped
    # Splitting the text would hold 100,000 line objects: several times the text.
    assert peak < len(text) // 10


def test_a_recall_deep_in_a_long_result_shows_its_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lines_module, "_CHUNK", 1 << 16)
    text = "".join(f"line {i}\n" for i in range(1, 300_001))
    session = Session()
    session.output("bash", {"command": "make"}, text)
    shown = session.recall("#0001", offset=250_000, limit=3)
    bracket = TEXTS.render(
        "recall_bracket", id="#0002", target="#0001", first=250_000, last=250_002, total=300_000
    )
    assert shown == bracket + "\n" + "\n".join(f"line {i}" for i in range(250_000, 250_003))
