"""`ctxconf audit` end to end over a source of the tests' own: what it prints, writes and exits
with; the figures worked out by hand from the records."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ctxconf.audit.bundle import make_bundle
from ctxconf.audit.command import AuditOptions, run_audit
from ctxconf.cache import bundled_prices
from tests.paths import ROOT

from .fake_reader import FAKE

SCHEMA = json.loads((ROOT / "schemas" / "audit-results.schema.json").read_text())
SECRET_PROMPT = "the person's own words <script>alert(1)</script>"


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


ROWS = [
    {"t": 0, "uncached": 100, "read": 0, "w5m": 10_000, "output": 50, "project": SECRET_PROMPT},
    {"t": 30, "uncached": 100, "read": 10_000, "w5m": 2_000, "output": 50},
    {"t": 60, "uncached": 100, "read": 0, "w5m": 12_500, "output": 50},  # 12,000 lost
]


def audit(
    tmp_path: Path, rows: list[dict[str, Any]], **options: Any
) -> tuple[int, str, str, dict[str, Any]]:
    records = write(tmp_path / "a.fake", rows)
    out, err = io.StringIO(), io.StringIO()
    json_out = tmp_path / "results.json"
    code = run_audit(
        AuditOptions(paths=[records], readers=[FAKE], json_out=json_out, **options), out, err
    )
    doc = json.loads(json_out.read_text()) if json_out.exists() else {}
    return code, out.getvalue(), err.getvalue(), doc


def test_the_results_hold_each_loss_with_its_cause_and_its_price(tmp_path: Path) -> None:
    code, out, _, doc = audit(tmp_path, ROWS)
    assert code == 0
    jsonschema.validate(doc, SCHEMA)
    step = doc["sessions"][0]["timeline"][2]
    assert (step["readable"], step["lost"]) == (12_000, 12_000)
    assert step["cause"]["kind"] == "prefix-changed" and step["cause"]["basis"] == "inferred"
    price = bundled_prices().find("anthropic", "claude-sonnet-4-5")
    assert price is not None
    # The 12,000 lost tokens were all written for 5 minutes: each cost the write price less
    # the read price.
    expected = Decimal(12_000) * (price.cache_write - price.cache_read) / Decimal(1_000_000)
    assert step["lost_usd"] == {"usd": float(round(expected, 6)), "label": "computed"}
    figures = doc["figures"]
    assert figures["lost_tokens"]["harness"] == 12_000
    assert figures["hit_rate"] == round(10_000 / (10_100 + 12_100 + 12_600), 6)
    assert "prefix-changed" in out and "hit rate: 28.7%" in out


def test_a_source_without_cache_figures_is_nothing_judged_never_green(tmp_path: Path) -> None:
    rows = [{"t": 0, "uncached": 100}, {"t": 10, "uncached": 200}]
    code, out, err, doc = audit(tmp_path, rows)
    assert code == 3
    assert doc["figures"]["hit_rate"] is None
    assert "hit rate: N/A" in out
    assert "nothing could be judged" in err


def test_a_request_two_files_record_is_one_request(tmp_path: Path) -> None:
    # the same calls of one session in two files (an events file and a telemetry export), the
    # one read first without a write figure: the one with more figures is kept, each call once
    rows = [{**row, "id": f"call{n}"} for n, row in enumerate(ROWS)]
    fewer = [{k: v for k, v in row.items() if k != "w5m"} for row in rows]
    write(tmp_path / "b.fake", [*fewer, {"t": 90, "uncached": 100, "read": 12_500, "id": "x"}])
    records = write(tmp_path / "a.fake", rows)
    out, err = io.StringIO(), io.StringIO()
    json_out = tmp_path / "results.json"
    options = AuditOptions(paths=[tmp_path / "b.fake", records], readers=[FAKE], json_out=json_out)
    assert run_audit(options, out, err) == 0
    (session,) = json.loads(json_out.read_text())["sessions"]
    assert [
        (step["request_id"], step["file"], step["written_5m"]) for step in session["timeline"]
    ] == [
        ("call0", str(records), 10_000),
        ("call1", str(records), 2_000),
        ("call2", str(records), 12_500),
        ("x", str(tmp_path / "b.fake"), None),
    ]


def test_the_bars_fail_the_audit_and_say_why(tmp_path: Path) -> None:
    code, _, err, _ = audit(tmp_path, ROWS, fail_under=0.5)
    assert code == 1 and "under --fail-under 50.0%" in err
    code, _, err, _ = audit(tmp_path, ROWS, max_lost_usd=0.001)
    assert code == 1 and "over --max-lost-usd" in err
    assert audit(tmp_path, ROWS, fail_under=0.2, max_lost_usd=10.0)[0] == 0


def test_a_bad_line_is_one_problem_and_the_rest_is_read(tmp_path: Path) -> None:
    records = tmp_path / "a.fake"
    records.write_bytes(
        json.dumps(ROWS[0]).encode() + b"\n{not json\n\xff\xfe\n" + json.dumps(ROWS[1]).encode()
    )
    out, err = io.StringIO(), io.StringIO()
    json_out = tmp_path / "r.json"
    code = run_audit(AuditOptions(paths=[records], readers=[FAKE], json_out=json_out), out, err)
    doc = json.loads(json_out.read_text())
    assert code == 0
    assert [(p["line"], p["message"].split(" (")[0].split(":")[0]) for p in doc["problems"]] == [
        (2, "not JSON"),
        (3, "not UTF-8 at byte 1"),
    ]
    assert doc["figures"]["requests"] == 2
    assert f"{records}:2: not JSON" in out.getvalue()


def test_a_given_path_that_does_not_exist_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = run_audit(AuditOptions(paths=[tmp_path / "nowhere"], readers=[FAKE]), out, err)
    assert code == 3
    assert f"{tmp_path / 'nowhere'}: no such file or folder" in out.getvalue()


def test_the_page_escapes_what_came_from_a_file(tmp_path: Path) -> None:
    html_out = tmp_path / "audit.html"
    code, _, _, _ = audit(tmp_path, ROWS, html_out=html_out)
    page = html_out.read_text()
    assert code == 0
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count('class="lost"') == 1  # the one loss marked in the chart


def test_the_bundle_holds_no_text_from_a_record(tmp_path: Path) -> None:
    _, _, _, doc = audit(tmp_path, ROWS)
    bundle = json.dumps(make_bundle(doc))
    assert SECRET_PROMPT not in bundle and "the person" not in bundle
    assert str(tmp_path) not in bundle  # the folder a file was in is not kept
    assert '"kind": "prefix-changed"' in bundle


@pytest.mark.parametrize("text", ["0.5", "50%", "50"])
def test_the_command_line_takes_a_rate_as_a_share_or_a_percent(text: str) -> None:
    from ctxconf.commands.audit import _share

    assert _share(text) == 0.5


@pytest.mark.parametrize("text", ["half", "150%", "-1"])
def test_a_rate_that_is_none_is_refused_with_how_to_write_one(text: str) -> None:
    import argparse

    from ctxconf.commands.audit import _share

    with pytest.raises(argparse.ArgumentTypeError):
        _share(text)


def test_a_sources_cost_of_nothing_for_tokens_sent_is_no_figure(tmp_path: Path) -> None:
    rows = [{**ROWS[0], "cost": 0}, {**ROWS[1], "cost": 0.25}]
    _, out, _, doc = audit(tmp_path, rows)
    assert doc["figures"]["measured_cost_usd"] == 0.25
    assert doc["figures"]["requests_measured"] == 1
    assert "the sources' own: $0.2500" in out


def test_an_hours_writes_are_priced_at_the_hours_rate_and_the_difference_said(
    tmp_path: Path,
) -> None:
    rows = [{"t": 0, "uncached": 100, "read": 0, "w1h": 10_000, "output": 50}]
    _, out, _, doc = audit(tmp_path, rows)
    price = bundled_prices().find("anthropic", "claude-sonnet-4-5")
    assert price is not None
    premium = 10_000 * (price.cache_write_1h - price.cache_write) / Decimal(1_000_000)
    assert doc["figures"]["hour_premium_usd"] == float(round(premium, 6)) > 0
    assert "10,000 tokens were written for an hour and are priced at the hour's rate" in out
