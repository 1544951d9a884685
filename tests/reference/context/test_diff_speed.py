"""The reference's diff takes shortcuts (a lower bound, a known script's length, the common
start skipped, diagonals left out); its output is byte for byte that of the plain search
(`tests/diff_oracle.py`), including where `diff.max_edit` turns it into a whole replacement."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxconf.reference import ContextConfig
from ctxconf.reference.context.diff import (
    _lines,
    _myers_runs,
    edit_lower_bound,
    some_edit_length,
    unified_diff,
)
from tests import diff_oracle

TEXTS = ContextConfig.load().texts

# Few distinct lines, so that lines repeat and the search has ties to break.
lines_of = st.lists(st.sampled_from(["a", "b", "c", "", "}", "a "]), max_size=30)


@st.composite
def text_pairs(draw: st.DrawFn) -> tuple[str, str]:
    before = draw(lines_of)
    if draw(st.booleans()):
        after = draw(lines_of)
    else:  # mostly the same lines: the common case of an edit
        after = [draw(st.sampled_from(["x", line])) for line in before]
        after.insert(draw(st.integers(0, len(after))), "y")
    ends = draw(st.sampled_from(["\n\n", "\n", "", "\n "]))
    return "\n".join(before) + ends[: len(ends) // 2], "\n".join(after) + ends[len(ends) // 2 :]


@pytest.mark.slow
@settings(max_examples=600, deadline=None, derandomize=True, database=None)
@given(text_pairs(), st.sampled_from([0, 1, 2, 3, 5, 8, 13, 1000]), st.sampled_from([0, 1, 3]))
def test_the_diff_is_that_of_the_plain_search(
    pair: tuple[str, str], max_edit: int, context: int
) -> None:
    before, after = pair
    plain = diff_oracle.unified_diff(before, after, context, TEXTS, max_edit)
    assert unified_diff(before, after, context, TEXTS, max_edit) == plain


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(text_pairs())
def test_the_bounds_hold_the_shortest_script_between_them(pair: tuple[str, str]) -> None:
    a, b = (_lines(text) for text in pair)
    runs = _myers_runs(a, b, len(a) + len(b))
    assert runs is not None
    shortest = len(a) + len(b) - 2 * sum(length for _, _, length in runs)
    assert (
        edit_lower_bound(a, b) <= shortest <= some_edit_length(a, b, len(a) + len(b), effort=10**9)
    )


def test_some_edit_length_gives_up_past_its_limit() -> None:
    a = [str(i) for i in range(50)]
    assert some_edit_length(a, a[::-1], 10, effort=10**9) > 10


def _seconds(before: str, after: str) -> float:
    started = time.perf_counter()
    unified_diff(before, after, 3, TEXTS, 1000)
    return time.perf_counter() - started


def test_a_whole_rewrite_is_proven_too_long_before_any_search() -> None:
    # 5,000 lines each side, none shared: the plain search runs 1,000 rounds over up to 1,000
    # diagonals each (seconds); the bound proves at once that it cannot succeed.
    before = "".join(f"old {i}\n" for i in range(5000))
    after = "".join(f"new {i}\n" for i in range(5000))
    diff = unified_diff(before, after, 3, TEXTS, 1000)
    assert diff.startswith("@@ -1,5000 +1,5000 @@\n-old 0\n")
    assert min(_seconds(before, after) for _ in range(3)) < 0.25


@pytest.mark.parametrize("seed", range(6))
def test_long_files_with_scattered_changes_diff_as_the_plain_search(seed: int) -> None:
    # Long enough that the search leaves out points by the lines they may still keep.
    rng = random.Random(seed)
    pool = [f"line {i}" for i in range(rng.choice([2000, 300, 12]))]
    before = [rng.choice(pool) for _ in range(rng.randrange(800, 2000))]
    after = list(before)
    for _ in range(rng.randrange(5, 150)):
        at = rng.randrange(len(after))
        kind = rng.random()
        if kind < 0.4:
            after[at] = rng.choice([*pool[:50], "new"])
        elif kind < 0.7:
            after.insert(at, rng.choice([*pool[:50], "added"]))
        else:
            del after[at]
    old, new = "\n".join(before) + "\n", "\n".join(after) + "\n"
    for max_edit in (1000, 40):
        plain = diff_oracle.unified_diff(old, new, 3, TEXTS, max_edit)
        assert unified_diff(old, new, 3, TEXTS, max_edit) == plain
