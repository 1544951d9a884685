"""The results file's cache audit: per request and per session, from the recorded requests played
again as the mock played them, so its figures are the ones the harness was sent."""

from __future__ import annotations

import itertools
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ctxconf.cache import load_prices
from ctxconf.probe import results
from ctxconf.probe.checks import judge_run
from ctxconf.probe.harness import ProbeRun, run_probe
from ctxconf.probe.profile import load_profile
from ctxconf.probe.scenario import load_scenario
from tests.paths import PROBE_SCHEMAS

from .helpers import fake_profile

PRICES = {
    "date": "2027-01-01",
    "currency": "USD",
    "unit": "per million tokens",
    "sources": {"anthropic": "a test's own table"},
    "models": [
        {
            "provider": "anthropic",
            "model": "*",
            "input": 3,
            "cache_read": 0.3,
            "cache_write": 3.75,
            "cache_write_1h": 6,
            "output": 15,
        }
    ],
}


def _run(folder: Path, shape: str, faults: tuple[str, ...] = ()) -> ProbeRun:
    folder.mkdir()
    profile = load_profile(str(fake_profile(folder, shape, faults)))
    return run_probe(profile, load_scenario("basic"), folder / "logs")


def _data(run: ProbeRun, prices: Path | None = None) -> dict[str, Any]:
    return results.to_data(run, judge_run(run), [], load_prices(prices))


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> ProbeRun:
    return _run(tmp_path_factory.mktemp("clean") / "run", "anthropic")


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory: pytest.TempPathFactory) -> ProbeRun:
    return _run(tmp_path_factory.mktemp("rebuilt") / "run", "anthropic", ("rebuilt-prompt",))


def test_the_results_give_each_request_the_figures_the_mock_sent(clean: ProbeRun) -> None:
    data = _data(clean)
    schema = json.loads((PROBE_SCHEMAS / "results.schema.json").read_text())
    assert [e.message for e in Draft202012Validator(schema).iter_errors(data)] == []
    sent = {e["n"]: e["usage"] for s in clean.sessions for e in s.entries if "usage" in e}
    rows = data["cache"]["sessions"][0]["requests"]
    assert [r["n"] for r in rows] == sorted(sent)
    for row in rows:
        usage = sent[row["n"]]
        assert (row["input_total"], row["cache_read"], row["cache_write"]) == (
            usage["input_total"],
            usage["cached"],
            usage["written"],
        )
        assert row["uncached"] == row["input_total"] - row["cache_read"]
        assert row["headers"] == {"anthropic-version": "2023-06-01"}
    # A clean harness marks its prompt and its last block: after the first, every request reads
    # all the one before it sent and loses nothing.
    assert rows[0]["cache_read"] == 0 and rows[0]["cache_write"] == rows[0]["input_total"]
    for before, after in itertools.pairwise(rows):
        assert after["cache_read"] == before["input_total"]
        assert after["diagnosis"] is None


def test_the_session_totals_and_hit_rate_add_up(clean: ProbeRun) -> None:
    session = _data(clean)["cache"]["sessions"][0]
    rows, totals = session["requests"], session["totals"]
    assert session["provider"] == "anthropic"
    assert totals["requests"] == len(rows) == 6
    for key in ("input_total", "cache_read", "cache_write", "uncached"):
        assert totals[key] == sum(r[key] for r in rows)
    assert totals["hit_rate"] == totals["cache_read"] / totals["input_total"]
    assert (totals["lost"], totals["lost_other"]) == (0, 0)
    # No bundled price names the fake's model: no cost, rather than a guessed one.
    assert totals["cost_usd"] is None and session["prices"] == []
    assert totals["lost_usd"] is None and totals["lost_other_usd"] is None


def test_a_price_file_prices_every_request(clean: ProbeRun, tmp_path: Path) -> None:
    file = tmp_path / "prices.json"
    file.write_text(json.dumps(PRICES))
    session = _data(clean, file)["cache"]["sessions"][0]
    used = {"model": "*", "date": "2027-01-01", "source": "a test's own table"}
    assert session["prices"] == [used]
    expected = Decimal(0)
    for r in session["requests"]:
        neither = r["input_total"] - r["cache_read"] - r["cache_write"]
        dollars = (
            neither * Decimal(3)
            + r["cache_read"] * Decimal("0.3")
            + r["cache_write"] * Decimal("3.75")
            + r["output"] * Decimal(15)
        ) / 1_000_000
        assert Decimal(r["cost_usd"]) == dollars
        expected += dollars
    assert Decimal(session["totals"]["cost_usd"]) == expected


def test_a_remade_prompt_is_diagnosed_with_its_rule_and_bytes(rebuilt: ProbeRun) -> None:
    rows = _data(rebuilt)["cache"]["sessions"][0]["requests"]
    diagnosed = [r for r in rows if r["diagnosis"] is not None]
    assert [r["n"] for r in diagnosed] == [r["n"] for r in rows[1:]]
    for row, before in zip(rows[1:], rows, strict=False):
        diagnosis = row["diagnosis"]
        assert diagnosis["against"] == before["n"]
        # Only the tools before the prompt are shared, yet had the prompt been kept the request
        # would have read all the request before it left readable: its read and its write.
        assert row["cache_read"] == 0 and diagnosis["shared"] > 0
        assert diagnosis["lost"] == before["cache_read"] + before["cache_write"]
        assert diagnosis["lost"] > diagnosis["shared"]
        assert diagnosis["loss"]["harness"] == diagnosis["lost"]
        cause = diagnosis["causes"][0]
        assert (cause["kind"], cause["anchor"], cause["unit"]) == (
            "system-text",
            "pfx.system.once",
            "system.0",
        )
        assert "Request number: " in cause["diff"]["later"]
        assert cause["diff"]["earlier"] != cause["diff"]["later"]
