"""The bundled price table, a user's table over it, and what figures cost."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from ctxconf.cache import Figures, bundled_prices, load_prices, request_cost, session_cost
from ctxconf.errors import DataError
from tests.paths import ROOT

DATA = ROOT / "ctxconf" / "cache" / "data"


def test_the_schema_is_a_schema_and_the_table_holds_to_it() -> None:
    schema = json.loads((DATA / "prices.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    table = json.loads((DATA / "prices.json").read_text(encoding="utf-8"))
    assert list(Draft202012Validator(schema).iter_errors(table)) == []
    assert table["date"] == "2026-12-01"
    providers = {row["provider"] for row in table["models"]}
    assert providers == {"anthropic", "openai", "gemini", "llamacpp"}
    assert set(table["sources"]) == providers


def test_anthropic_rows_keep_the_multipliers_of_its_caching_page() -> None:
    # A 5-minute write 1.25x, an hour's 2x, a read 0.1x of the input price.
    for row in bundled_prices().rows:
        if row.provider == "anthropic":
            assert (row.cache_write, row.cache_write_1h, row.cache_read) == (
                row.input * Decimal("1.25"),
                row.input * 2,
                row.input * Decimal("0.1"),
            ), row.model


@pytest.mark.parametrize(
    ("provider", "model", "found"),
    [
        ("anthropic", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("anthropic", "claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("anthropic", "claude-sonnet-4-7", None),  # not Sonnet 4 at Sonnet 4's price
        ("openai", "openai/gpt-5.4", "gpt-5.4"),
        ("openai", "gpt-5.4-mini", "gpt-5.4-mini"),
        ("gemini", "gemini-3.1-pro-preview", "gemini-3.1-pro"),
        ("llamacpp", "qwen3-coder", "*"),
        ("mistral", "devstral", None),
    ],
)
def test_a_model_id_finds_its_row(provider: str, model: str, found: str | None) -> None:
    row = bundled_prices().find(provider, model)
    assert (row.model if row else None) == found


def test_a_request_costs_each_kind_of_token_at_its_price() -> None:
    price = bundled_prices().find("anthropic", "claude-sonnet-4-5")
    assert price is not None
    # 1,035 written, 1,024 of them for an hour ($6/M) and 11 for five minutes ($3.75/M), and
    # 100 output tokens ($15/M): 6,144 + 41.25 + 1,500 = 7,685.25 millionths of a dollar.
    cost = request_cost(Figures(1035, 0, 1035, 1024), price, output_tokens=100)
    assert (cost.input, cost.cache_read, cost.cache_write, cost.output) == (
        Decimal(0),
        Decimal(0),
        Decimal("0.00618525"),
        Decimal("0.0015"),
    )
    assert cost.total == Decimal("0.00768525")
    # 1,101 read ($0.30/M) and 32 neither read nor written ($3/M): 330.3 + 96.
    read = request_cost(Figures(1133, 1101, 0), price)
    assert (read.cache_read, read.input, read.total) == (
        Decimal("0.0003303"),
        Decimal("0.000096"),
        Decimal("0.0004263"),
    )


def test_a_write_without_a_write_price_is_billed_as_input() -> None:
    price = bundled_prices().find("openai", "gpt-5.4")
    assert price is not None
    # 1,000 written at the input's $2.50/M, 24 read at $0.25/M.
    assert request_cost(Figures(1024, 24, 1000), price).total == Decimal("0.002506")


def test_a_session_costs_the_sum_of_its_requests() -> None:
    price = bundled_prices().find("anthropic", "claude-haiku-4-5")
    assert price is not None
    # Request 0: 2,000 written ($1.25/M) and 10 output ($5/M); request 1: 2,000 read ($0.10/M)
    # and 500 neither ($1/M), no output given.
    cost = session_cost([Figures(2000, 0, 2000), Figures(2500, 2000, 0)], price, [10])
    assert (cost.cache_write, cost.cache_read, cost.input, cost.output) == (
        Decimal("0.0025"),
        Decimal("0.0002"),
        Decimal("0.0005"),
        Decimal("0.00005"),
    )


def _user_table(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "prices.json"
    table = {"date": "2027-02-01", "currency": "USD", "sources": {"anthropic": "my contract"}}
    path.write_text(json.dumps({**table, "models": rows}), encoding="utf-8")
    return path


def test_a_users_table_replaces_its_rows_and_keeps_the_rest(tmp_path: Path) -> None:
    row = {
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "input": 2,
        "cache_read": 0.2,
        "cache_write": 2.5,
        "cache_write_1h": 4,
        "output": 10,
    }
    table = load_prices(_user_table(tmp_path, [row, {**row, "model": "claude-next"}]))
    mine = table.find("anthropic", "claude-sonnet-4-5")
    assert mine is not None
    assert (mine.input, mine.date, mine.source) == (Decimal(2), "2027-02-01", "my contract")
    assert table.find("anthropic", "claude-next") is not None
    kept = table.find("anthropic", "claude-opus-4-5")
    assert kept is not None and (kept.input, kept.date) == (Decimal(5), "2026-12-01")


def test_a_broken_users_table_is_refused_with_its_place(tmp_path: Path) -> None:
    row = {"provider": "anthropic", "model": "m", "input": -1, "cache_read": 0}
    with pytest.raises(DataError, match=r"prices.json: at /models/0"):
        load_prices(_user_table(tmp_path, [row]))
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad.json:1:2"):
        load_prices(bad)
