"""The tolerance of `--compare`: read from its one-option form, said back as given, and a move
judged by share and floor together (a hit rate by the share in points)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from ctxconf.probe.tolerance import Tolerance, parse_tolerance


@pytest.mark.parametrize(
    ("given", "read"),
    [
        ("5%,100,0.0001", Tolerance()),
        (" 12.5% , 0 , $0.01 ", Tolerance(Decimal("0.125"), 0, Decimal("0.01"))),
        ("0%,0,0", Tolerance(Decimal(0), 0, Decimal(0))),
    ],
)
def test_a_tolerance_is_read_from_its_three_parts(given: str, read: Tolerance) -> None:
    assert parse_tolerance(given) == read


def test_the_default_is_said_as_the_docs_give_it() -> None:
    assert Tolerance().said() == "5 %, 100 tokens, $0.0001"
    assert parse_tolerance("100%,2000,1").said() == "100 %, 2,000 tokens, $1"


@pytest.mark.parametrize(
    ("old", "new", "direction"),
    [
        (1000, 1012, "changed"),  # under the floor
        (10_000, 10_400, "changed"),  # past the floor, under the share
        (10_000, 10_600, "worse"),
        (10_600, 10_000, "better"),
        (0, 101, "worse"),  # nothing re-read before: the floor alone
        (0, 100, "changed"),  # exactly at the floor is within it
    ],
)
def test_tokens_move_past_both_the_share_and_the_floor(old: int, new: int, direction: str) -> None:
    assert Tolerance().tokens_moved(old, new) == direction


def test_a_cost_is_judged_in_exact_decimals() -> None:
    assert Tolerance().cost_moved("0.000120", "0.000126") == "changed"
    assert Tolerance().cost_moved("0.0020", "0.0022") == "worse"  # +$0.0002, +10 %
    assert Tolerance().cost_moved("0.0022", "0.0020") == "better"


def test_a_hit_rate_moves_by_the_share_in_points() -> None:
    assert Tolerance().hit_rate_moved(0.395, 0.576) == "better"
    assert Tolerance().hit_rate_moved(0.50, 0.46) == "changed"
    assert Tolerance().hit_rate_moved(0.50, 0.44) == "worse"


def test_docs_give_the_default_the_code_uses() -> None:
    text = (Path(__file__).parents[2] / "docs" / "probe.md").read_text(encoding="utf-8")
    default = Tolerance()
    assert parse_tolerance("5%,100,0.0001") == default
    assert "`--tolerance 5%,100,0.0001` is the default" in text
    assert f"{default.tokens} tokens, 5 % and ${default.dollars}" in text
