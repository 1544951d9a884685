"""The history benchmark runs to the end on small sessions and prints every row.

Only that it completes: timings depend on the machine, so nothing here asserts on them.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.slow  # runs a benchmark

SCRIPT = ROOT / "bench" / "bench_history.py"

SIZES = ["1x", "4x", "16x"]
STEPS = ["trim to half the tokens", "branch back and forth", "fork", "compaction"]


def _run(*args: str, expect: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == expect, (
        f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    )
    return done


@pytest.fixture(scope="module")
def quick_run() -> str:
    return _run("--quick").stdout


def _tables(output: str, heading: str) -> list[list[list[str]]]:
    """The tables under `heading`, up to the next heading: each a list of rows of cells,
    header and `|---|` line left out."""
    lines = output.splitlines()
    assert heading in lines, f"no {heading!r} in:\n{output}"
    tables: list[list[list[str]]] = []
    current: list[list[str]] | None = None
    for line in lines[lines.index(heading) + 1 :]:
        if line.startswith("#"):
            break
        if not line.startswith("|"):
            current = None
            continue
        if current is None:
            current = []
            tables.append(current)
        current.append([cell.strip() for cell in line.strip("|").split("|")])
    return [table[2:] for table in tables]


def test_the_live_session_has_a_row_per_size_and_its_growth(quick_run: str) -> None:
    sessions, growth = _tables(quick_run, "### A live session, turn by turn")
    assert [row[0] for row in sessions] == SIZES
    assert [row[0] for row in growth] == ["4x / 1x", "16x / 4x"]
    assert all(row[-1] in ("PASS", "MISS") for row in growth), growth


def test_the_session_under_a_budget_has_a_row_per_size_and_its_growth(quick_run: str) -> None:
    sessions, growth = _tables(quick_run, "### A live session held under a budget")
    assert [row[0] for row in sessions] == SIZES
    assert [row[0] for row in growth] == ["4x / 1x", "16x / 4x"]
    assert all(row[-1] in ("PASS", "MISS") for row in growth), growth


def test_against_an_earlier_commit_drives_both_side_by_side() -> None:
    out = _run("--quick", "--against", "HEAD").stdout
    (rows,) = _tables(out, "### Before and after: the reference at HEAD")
    assert [(row[0], row[1]) for row in rows] == [
        (session, size) for session in ("live", "under a budget") for size in SIZES
    ]
    _, growth = _tables(out, "### A live session, turn by turn")
    assert len(growth[0]) == 7, growth  # a column for the earlier reference


def test_against_an_unknown_commit_is_a_usage_error() -> None:
    done = _run("--quick", "--against", "no-such-commit", expect=2)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --against no-such-commit: "), done
    assert "Traceback" not in done.stderr


def test_reload_and_request_have_a_row_per_size(quick_run: str) -> None:
    reloads, requests = _tables(quick_run, "### Reload and one request")
    assert [(row[0], row[1]) for row in reloads] == [("reload", size) for size in SIZES]
    assert [(row[0], row[1]) for row in requests] == [
        (name, size) for name in ("first request", "next request") for size in SIZES
    ]
    assert all(row[-1] in ("PASS", "MISS") for row in reloads + requests)


def test_each_step_between_turns_has_a_row(quick_run: str) -> None:
    (steps,) = _tables(quick_run, "### Steps between turns, at 16x")
    assert [row[0] for row in steps] == STEPS
    assert all(row[-1] in ("PASS", "MISS") for row in steps), steps


def test_the_memory_of_a_reload_has_a_row_per_size(quick_run: str) -> None:
    (memory,) = _tables(quick_run, "### Memory of a reload")
    assert [row[1] for row in memory] == SIZES
    assert all(row[6] in ("PASS", "MISS") for row in memory), memory


def test_every_missed_target_is_explained(quick_run: str) -> None:
    lines = quick_run.splitlines()
    missed = [line for line in lines if line.startswith("|") and "| MISS |" in line]
    notes = _notes(quick_run)
    assert len(notes) == len(missed) or (not missed and notes == ["Every target is met."]), notes


def _notes(output: str) -> list[str]:
    lines = output.splitlines()
    heading = lines.index("### Why a target is missed")
    notes: list[str] = []
    for line in lines[heading + 1 :]:
        if line.startswith("#"):
            break
        if line:
            notes.append(line)
    return notes


def test_records_the_machine_and_the_load(quick_run: str) -> None:
    lines = quick_run.splitlines()
    for label in ("- Date: ", "- Machine: ", "- Python ", "- History sources "):
        assert any(line.startswith(label) for line in lines), label
    assert "load average (1, 5, 15 min)" in quick_run
