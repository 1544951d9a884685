"""The matrix as data: a row per harness and version, its file, and `--compare` marking every
cell that changed since an earlier matrix, on the page, in markdown and on the console."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxconf.probe.matrix import compare, load, matrix_rows, to_data
from ctxconf.probe.pages import matrix_html, matrix_markdown
from ctxconf.probe.schemas import validate_data
from tests.cli import ctxconf


def _results(version: str, verdict: str, hit_rate: float, reread: int, **extra: Any) -> dict:
    """A results file of harness `h` in the basic scenario, as the probe writes one."""
    totals = {
        "requests": 2, "input_total": 2000, "cache_read": int(2000 * hit_rate),
        "cache_write": 0, "cache_write_1h": 0, "uncached": 2000 - int(2000 * hit_rate),
        "hit_rate": hit_rate, "lost": reread, "lost_other": 0, "cost_usd": "0.0100",
        "lost_usd": "0.0001", "lost_other_usd": "0",
    }  # fmt: skip
    data = {
        "format": "ctxconf-probe-results",
        "format_version": 1,
        "ctxconf_version": "0.1.0",
        "harness": {"name": "h", "api": "openai-chat", "version": version, "profile": "p.yaml"},
        "scenario": {"name": "basic"},
        "started": "2026-11-30T10:00:00+00:00",
        "finished": "2026-11-30T10:01:00+00:00",
        "checks": [
            {
                "id": "no-clock",
                "anchor": "pfx.system.no-clock",
                "kind": "exact",
                "verdict": verdict,
                "summary": f"{verdict}: <b>seen</b>",
                "figures": {},
            }
        ],
        "processes": [],
        "requests": 2,
        "cache": {"sessions": [], "totals": totals},
        "exit_code": 1 if verdict == "fail" else 0,
        **extra,
    }
    validate_data(data, "results", "a test's results")
    return data


def _write(folder: Path, name: str, data: dict) -> Path:
    path = folder / name
    path.write_text(json.dumps(data))
    return path


def test_the_matrix_file_is_what_its_schema_describes_and_reads_back_as_it_was() -> None:
    rows = matrix_rows([_results("1.0.0", "pass", 0.5, 100)])
    data = to_data(rows)
    validate_data(data, "matrix", "a test's matrix")
    assert [r["harness"] for r in data["rows"]] == ["h"]


def test_a_round_trip_through_the_file_keeps_every_cell(tmp_path: Path) -> None:
    rows = matrix_rows([_results("1.0.0", "pass", 0.5, 100)])
    path = _write(tmp_path, "m.json", to_data(rows))
    assert load(path) == rows


def test_two_versions_of_a_harness_stand_side_by_side() -> None:
    rows = matrix_rows([_results("1.0.0", "pass", 0.5, 100), _results("2.0.0", "fail", 0.2, 900)])
    assert [(r.harness, r.version) for r in rows] == [("h", "1.0.0"), ("h", "2.0.0")]
    markdown = matrix_markdown(rows)
    assert "| h | 1.0.0 |" in markdown and "| h | 2.0.0 |" in markdown


def test_an_unchanged_matrix_marks_nothing() -> None:
    rows = matrix_rows([_results("1.0.0", "pass", 0.5, 100)])
    comparison = compare(rows, rows, "old.json")
    assert comparison.changes == {} and comparison.worse == 0
    assert "was " not in matrix_markdown(rows, comparison)
    assert 'class="was"' not in matrix_html(rows, comparison)


def test_a_check_that_started_failing_and_a_hit_rate_that_fell_are_marked_worse() -> None:
    old = matrix_rows([_results("1.0.0", "pass", 0.5, 100)])
    new = matrix_rows([_results("1.1.0", "fail", 0.25, 700)])
    comparison = compare(new, old, "old.json")
    changed = comparison.of(new[0])
    assert {k: (c.was, c.worse) for k, c in changed.items()} == {
        "no-clock": ("✅ pass", True),
        "hit_rate:basic": ("50.0 %", True),
        "reread:basic": ("100", True),
    }
    markdown = matrix_markdown(new, comparison)
    assert "(**worse**, was ✅ pass)" in markdown and "25.0 % (**worse**, was 50.0 %)" in markdown
    assert "3 cells changed, 3 of them for the worse" in markdown
    html = matrix_html(new, comparison)
    assert 'class="fail changed worse"' in html and '<span class="was">was 50.0 %</span>' in html


def test_a_better_figure_is_marked_changed_not_worse() -> None:
    old = matrix_rows([_results("1.0.0", "fail", 0.25, 700)])
    new = matrix_rows([_results("1.0.0", "pass", 0.5, 100)])
    comparison = compare(new, old, "old.json")
    assert comparison.worse == 0 and len(comparison.of(new[0])) == 3


def test_a_new_harness_and_a_gone_one_are_said() -> None:
    old = matrix_rows([_results("1.0.0", "pass", 0.5, 100)])
    other = _results("1.0.0", "pass", 0.5, 100)
    other["harness"]["name"] = "other"
    comparison = compare(matrix_rows([other]), old, "old.json")
    assert comparison.new_rows == [("other", "1.0.0")] and comparison.gone_rows == [("h", "1.0.0")]


def test_compare_from_the_command_line_exits_1_when_a_cell_got_worse(tmp_path: Path) -> None:
    before = _write(tmp_path, "before.json", _results("1.0.0", "pass", 0.5, 100))
    ctxconf("probe", "--matrix", before, "--json", tmp_path / "old.json")
    after = _write(tmp_path, "after.json", _results("1.1.0", "fail", 0.5, 100))
    done = ctxconf(
        "probe", "--matrix", after, "--compare", tmp_path / "old.json",
        "--markdown", tmp_path / "m.md", "--html", tmp_path / "m.html", expect=1,
    )  # fmt: skip
    assert "worse: h 1.1.0, no date in the system prompt: ✅ pass → ❌ fail" in done.stdout
    assert "was ✅ pass" in (tmp_path / "m.md").read_text()
    same = ctxconf("probe", "--matrix", before, "--compare", tmp_path / "old.json")
    assert "0 cells changed, 0 of them for the worse." in same.stdout
    assert "worse:" not in same.stdout


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("{", "m.json:1:2"),
        (json.dumps({"format": "ctxconf-probe-matrix"}), "m.json: at /: "),
    ],
)
def test_an_earlier_matrix_that_cannot_be_used_is_named(
    tmp_path: Path, content: str, said: str
) -> None:
    results = _write(tmp_path, "r.json", _results("1.0.0", "pass", 0.5, 100))
    (tmp_path / "m.json").write_text(content)
    done = ctxconf("probe", "--matrix", results, "--compare", "m.json", cwd=tmp_path, expect=2)
    assert said in done.stderr and done.stderr.count("\n") <= 2


def test_a_results_file_given_for_the_earlier_matrix_says_how_to_make_one(tmp_path: Path) -> None:
    results = _write(tmp_path, "r.json", _results("1.0.0", "pass", 0.5, 100))
    done = ctxconf("probe", "--matrix", results, "--compare", results, expect=2)
    assert "a results file, not a matrix" in done.stderr
