"""The matrix as data: a row per harness and version, its file, and `--compare` marking every
cell that changed since an earlier matrix, on the page, in markdown and on the console."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ctxconf.probe.checks import CHECKS
from ctxconf.probe.matrix import compare, load, matrix_rows, to_data
from ctxconf.probe.pages import matrix_html, matrix_markdown
from ctxconf.probe.schemas import validate_data
from ctxconf.probe.tolerance import Tolerance
from tests.cli import ctxconf

ANCHORS = {check.id: check.anchor for check in CHECKS}


def _results(
    version: str,
    verdict: str,
    hit_rate: float,
    reread: int,
    cost: str = "0.0100",
    checks: dict[str, str] | None = None,
    **extra: Any,
) -> dict:
    """A results file of harness `h` in the basic scenario, as the probe writes one: the check
    `no-clock` with `verdict`, or each of `checks` with its own."""
    totals = {
        "requests": 2, "input_total": 2000, "cache_read": int(2000 * hit_rate),
        "cache_write": 0, "cache_write_1h": 0, "uncached": 2000 - int(2000 * hit_rate),
        "hit_rate": hit_rate, "lost": reread, "lost_other": 0, "cost_usd": cost,
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
                "id": check_id,
                "anchor": ANCHORS[check_id],
                "kind": "exact",
                "verdict": seen,
                "summary": f"{seen}: <b>seen</b>",
                "figures": {},
            }
            for check_id, seen in (checks or {"no-clock": verdict}).items()
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
    assert {k: (c.was, c.direction) for k, c in changed.items()} == {
        "no-clock": ("pass", "worse"),
        "hit_rate:basic": ("50.0 %", "worse"),
        "lost:basic": ("100", "worse"),
    }
    markdown = matrix_markdown(new, comparison)
    assert "(**worse**, was ✅ pass)" in markdown and "25.0 % (**worse**, was 50.0 %)" in markdown
    assert "0 better, 3 worse, 0 changed" in markdown
    html = matrix_html(new, comparison)
    assert (
        'class="fail changed worse"' in html
        and '<span class="was">worse, was 50.0 %</span>' in html
    )


def test_a_check_that_stopped_failing_and_better_figures_are_marked_better() -> None:
    old = matrix_rows([_results("1.0.0", "fail", 0.25, 700)])
    new = matrix_rows([_results("1.0.0", "pass", 0.5, 100)])
    comparison = compare(new, old, "old.json")
    assert {c.direction for c in comparison.of(new[0]).values()} == {"better"}
    assert (comparison.count("better"), comparison.worse) == (3, 0)
    assert "(**better**, was ❌ fail)" in matrix_markdown(new, comparison)
    assert 'class="pass changed better"' in matrix_html(new, comparison)


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
    assert "worse: h 1.1.0, no date in the system prompt: pass → fail" in done.stdout
    assert done.stdout.endswith(
        ": 0 better, 1 worse, 0 changed (tolerance 5 %, 100 tokens, $0.0001)\n"
    )
    assert "was ✅ pass" in (tmp_path / "m.md").read_text()
    same = ctxconf("probe", "--matrix", before, "--compare", tmp_path / "old.json")
    assert "0 better, 0 worse, 0 changed" in same.stdout
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


# The date bug and its fix, as a harness author saw them: the four checks the date breaks go
# from fail to pass, and the fix's date note costs a few tokens re-read and a few millionths of
# a dollar more. A compare that counted those as worse would block the fix.
DATE_CHECKS = ("system-once", "no-clock", "history-prefix", "date-note")
BEFORE_FIX = _results("1.0.0", "fail", 0.0, 1000, "0.000120", dict.fromkeys(DATE_CHECKS, "fail"))
AFTER_FIX = _results("1.0.1", "pass", 0.0, 1012, "0.000126", dict.fromkeys(DATE_CHECKS, "pass"))


def test_the_fix_of_a_date_bug_reads_as_better_and_its_cost_as_a_change() -> None:
    old, new = matrix_rows([BEFORE_FIX]), matrix_rows([AFTER_FIX])
    comparison = compare(new, old, "before.json")
    directions = {k: c.direction for k, c in comparison.of(new[0]).items()}
    assert directions == {
        **dict.fromkeys(DATE_CHECKS, "better"),
        "lost:basic": "changed",
        "cost:basic": "changed",
    }
    assert (comparison.count("better"), comparison.worse, comparison.count("changed")) == (4, 0, 2)


def test_the_fix_compared_from_the_command_line_says_better_and_exits_0(tmp_path: Path) -> None:
    before = _write(tmp_path, "before.json", BEFORE_FIX)
    ctxconf("probe", "--matrix", before, "--json", tmp_path / "old.json")
    after = _write(tmp_path, "after.json", AFTER_FIX)
    done = ctxconf("probe", "--matrix", after, "--compare", tmp_path / "old.json", "--html",
                   tmp_path / "m.html")  # fmt: skip
    lines = done.stdout.splitlines()
    assert "better: h 1.0.1, no date in the system prompt: fail → pass" in lines
    assert "changed: h 1.0.1, cost in basic: $0.000120 → $0.000126" in lines
    assert "worse" not in "\n".join(lines[:-1])
    assert lines[-1].endswith(": 4 better, 0 worse, 2 changed (tolerance 5 %, 100 tokens, $0.0001)")


def test_a_regression_reads_as_worse_and_exits_1(tmp_path: Path) -> None:
    ctxconf(
        "probe", "--matrix", _write(tmp_path, "a.json", AFTER_FIX), "--json", tmp_path / "old.json"
    )
    # The date back in the prompt: the checks fail again, and every turn re-reads the prompt.
    regressed = _results("1.0.2", "fail", 0.0, 2400, "0.000900", dict.fromkeys(DATE_CHECKS, "fail"))
    new = _write(tmp_path, "new.json", regressed)
    done = ctxconf("probe", "--matrix", new, "--compare", tmp_path / "old.json", "--markdown",
                   tmp_path / "m.md", expect=1)  # fmt: skip
    assert "worse: h 1.0.2, tokens lost in basic: 1,012 → 2,400" in done.stdout
    assert "worse: h 1.0.2, cost in basic: $0.000126 → $0.000900" in done.stdout
    assert ": 0 better, 6 worse, 0 changed" in done.stdout
    assert "2,400 (**worse**, was 1,012)" in (tmp_path / "m.md").read_text()


@pytest.mark.parametrize(
    ("old", "new", "direction"),
    [
        ((0.50, 10_000, "0.0100"), (0.47, 10_400, "0.0104"), "changed"),  # 4 %: within 5 %
        ((0.50, 0, "0.00001"), (0.50, 99, "0.00009"), "changed"),  # within the floors
        ((0.50, 10_000, "0.0100"), (0.40, 11_000, "0.0120"), "worse"),  # past share and floor
        ((0.50, 11_000, "0.0120"), (0.60, 10_000, "0.0100"), "better"),
    ],
    ids=["within-the-share", "within-the-floor", "past-both-dearer", "past-both-cheaper"],
)
def test_a_figure_is_better_or_worse_only_past_the_tolerance(
    old: tuple[float, int, str], new: tuple[float, int, str], direction: str
) -> None:
    before = matrix_rows([_results("1.0.0", "pass", *old)])
    after = matrix_rows([_results("1.0.0", "pass", *new)])
    comparison = compare(after, before, "old.json")
    assert {c.direction for c in comparison.of(after[0]).values()} == {direction}


def test_a_tolerance_of_nothing_counts_every_growth_as_worse() -> None:
    comparison = compare(
        matrix_rows([AFTER_FIX]),
        matrix_rows([BEFORE_FIX]),
        "old.json",
        Tolerance(Decimal(0), 0, Decimal(0)),
    )
    assert comparison.worse == 2 and comparison.count("better") == 4


def test_a_verdict_that_neither_starts_nor_stops_failing_is_only_changed() -> None:
    old = matrix_rows([_results("1.0.0", "pass", 0.5, 100)])
    new = matrix_rows([_results("1.0.0", "not-testable", 0.5, 100)])
    assert {k: c.direction for k, c in compare(new, old, "o").of(new[0]).items()} == {
        "no-clock": "changed"
    }
    errored = matrix_rows([_results("1.0.0", "error", 0.5, 100)])
    failed = matrix_rows([_results("1.0.0", "fail", 0.5, 100)])
    assert compare(errored, failed, "o").of(errored[0])["no-clock"].direction == "changed"


def test_the_tolerance_given_on_the_command_line_judges_the_figures(tmp_path: Path) -> None:
    ctxconf(
        "probe", "--matrix", _write(tmp_path, "b.json", BEFORE_FIX), "--json", tmp_path / "old.json"
    )
    after = _write(tmp_path, "a.json", AFTER_FIX)
    done = ctxconf("probe", "--matrix", after, "--compare", tmp_path / "old.json",
                   "--tolerance", "0%,10,$0", expect=1)  # fmt: skip
    assert "worse: h 1.0.1, tokens lost in basic: 1,000 → 1,012" in done.stdout
    assert done.stdout.rstrip().endswith("(tolerance 0 %, 10 tokens, $0)")


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("5", "give three parts, PERCENT%,TOKENS,DOLLARS"),
        ("5,100,0.0001", "its first part is a per cent, like 5%"),
        ("5%,ten,0.0001", "the floor in tokens is 'ten', not a number of 0 or more"),
        ("5%,1.5,0.0001", "the floor in tokens is a whole number"),
        ("5%,100,-1", "the floor in dollars is '-1', not a number of 0 or more"),
        ("nan%,100,1", "the per cent is 'nan', not a number"),
    ],
)
def test_a_bad_tolerance_is_one_line_and_exit_2(tmp_path: Path, given: str, said: str) -> None:
    results = _write(tmp_path, "r.json", _results("1.0.0", "pass", 0.5, 100))
    ctxconf("probe", "--matrix", results, "--json", tmp_path / "old.json")
    done = ctxconf("probe", "--matrix", results, "--compare", tmp_path / "old.json",
                   "--tolerance", given, expect=2)  # fmt: skip
    assert done.stderr.startswith(f"ctxconf probe: --tolerance {given!r}: ")
    assert said in done.stderr and done.stderr.count("\n") == 1


def test_a_tolerance_without_a_compare_is_refused(tmp_path: Path) -> None:
    results = _write(tmp_path, "r.json", _results("1.0.0", "pass", 0.5, 100))
    done = ctxconf("probe", "--matrix", results, "--tolerance", "5%,100,0.0001", expect=2)
    assert done.stderr == "ctxconf probe: --tolerance goes with --compare\n"


@pytest.mark.slow  # plays the suite's own harness twice: with the date bug, then fixed
def test_the_date_bug_fixed_in_a_small_harness_compares_as_better(tmp_path: Path) -> None:
    from tests.probe.helpers import fake_profile

    buggy = fake_profile(tmp_path, "chat", ("date-in-system",))
    fixed = fake_profile(tmp_path, "chat")  # the date as a note on the next message
    for profile, name in ((buggy, "before"), (fixed, "after")):
        ctxconf("probe", "--harness", profile, "--scenario", "midnight",
                "--json", tmp_path / f"{name}.json", expect=None)  # fmt: skip
        ctxconf("probe", "--matrix", tmp_path / f"{name}.json",
                "--json", tmp_path / f"{name}-matrix.json")  # fmt: skip
    done = ctxconf("probe", "--matrix", tmp_path / "after.json",
                   "--compare", tmp_path / "before-matrix.json")  # fmt: skip
    better = [line for line in done.stdout.splitlines() if line.startswith("better: ")]
    assert any("no date in the system prompt: fail → pass" in line for line in better), done
    assert any("the new date as a note: fail → pass" in line for line in better), done
    assert "worse: " not in done.stdout and ", 0 worse, " in done.stdout
    # The other way round, the fix undone, is a regression.
    undone = ctxconf("probe", "--matrix", tmp_path / "before.json",
                     "--compare", tmp_path / "after-matrix.json", expect=1)  # fmt: skip
    assert "worse: fake-chat 1.0.0, no date in the system prompt: pass → fail" in undone.stdout
