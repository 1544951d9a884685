"""The bytes around a difference, and what counts as a date or as white space."""

from __future__ import annotations

import pytest

from ctxconf.cache.bytediff import byte_diff
from ctxconf.cache.classify import mentions_time, only_white_space


def test_a_few_dozen_bytes_each_side_with_the_ends_marked() -> None:
    earlier = b"a" * 50 + b"X" + b"b" * 50
    later = b"a" * 50 + b"Y" + b"b" * 50
    diff = byte_diff(earlier, later, 50)
    # 40 bytes before (cut: "…"), 40 from the difference on (cut: "…").
    assert diff.earlier == "…" + "a" * 40 + "X" + "b" * 39 + "…"
    assert diff.later == "…" + "a" * 40 + "Y" + "b" * 39 + "…"
    assert diff.at == 41
    assert diff.lines()[2] == "  " + " " * 41 + "^"


def test_invisible_characters_are_shown_and_a_cut_character_dropped() -> None:
    # A line separator (3 bytes) shows as its code point. The difference is at byte 41, so the
    # window starts at byte 1, inside "é" (bytes 0 and 1): its stray byte is left out rather
    # than shown broken.
    earlier = "é".encode() + b"x" * 36 + "\u2028".encode() + b"A"
    later = "é".encode() + b"x" * 36 + "\u2028".encode() + b"B"
    diff = byte_diff(earlier, later, 41)
    assert diff.earlier == "…" + "x" * 36 + "⟨U+2028⟩A"
    assert diff.later == "…" + "x" * 36 + "⟨U+2028⟩B"


@pytest.mark.parametrize(
    ("before", "after", "timed"),
    [
        (b"date 2027-01-15 ok", b"date 2027-01-16 ok", True),
        (b"at 12:30:45 UTC", b"at 12:31:02 UTC", True),
        (b"on Jan 15 we", b"on Jan 16 we", True),
        (b"it is Wednesday.", b"it is Thursday..", True),
        (b"ts 1768560502000 z", b"ts 1768560599000 z", True),
        (b"version 10 here", b"version 11 here", False),
        (b"mode code", b"mode plan", False),
    ],
)
def test_a_date_or_time_in_the_changed_bytes(before: bytes, after: bytes, timed: bool) -> None:
    start = next(i for i, (x, y) in enumerate(zip(before, after, strict=True)) if x != y)
    assert mentions_time(before, after, start) is timed


def test_white_space_as_canonical_json_shows_it() -> None:
    assert only_white_space(b'{"text":"a\\nb"}', b'{"text":"a\\n\\nb "}')
    assert not only_white_space(b'{"text":"a b"}', b'{"text":"a c"}')
