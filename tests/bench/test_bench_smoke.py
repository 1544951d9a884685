"""The reference benchmark runs to the end on small inputs and prints every row.

Only that it completes: timings depend on the machine, so nothing here asserts on them.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.slow  # runs a benchmark

SCRIPT = ROOT / "bench" / "bench_reference.py"

BENCHMARKS = ["read", "cap", "dedupe", "diff (unique lines)", "diff (repeated lines)"]
DIFF_INPUTS = ["unique lines", "repeated lines"]


@pytest.fixture(scope="module")
def quick_run() -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, (
        f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    )
    return done


def _section(output: str, heading: str) -> list[str]:
    """The table rows (lines starting with `|`) under `heading`, up to the next heading."""
    lines = output.splitlines()
    assert heading in lines, f"no {heading!r} in:\n{output}"
    rows: list[str] = []
    for line in lines[lines.index(heading) + 1 :]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            rows.append(line)
    return rows


def _row_names(rows: list[str]) -> list[str]:
    # Skip the header and the |---| line; the first cell names the row.
    return [row.split("|")[1].strip() for row in rows[2:]]


@pytest.mark.parametrize(
    ("heading", "names"),
    [
        ("### Time", BENCHMARKS),
        ("### Memory", BENCHMARKS),
        ("### Diff: where the time goes", DIFF_INPUTS),
    ],
    ids=["time", "memory", "diff"],
)
def test_every_row_is_printed(
    quick_run: subprocess.CompletedProcess[str], heading: str, names: list[str]
) -> None:
    assert _row_names(_section(quick_run.stdout, heading)) == names


@pytest.mark.parametrize("heading", ["### Time", "### Memory"], ids=["time", "memory"])
def test_every_target_has_a_verdict(
    quick_run: subprocess.CompletedProcess[str], heading: str
) -> None:
    for row in _section(quick_run.stdout, heading)[2:]:
        assert "| PASS |" in row or "| MISS |" in row, row


def test_records_the_machine(quick_run: subprocess.CompletedProcess[str]) -> None:
    for label in ("- Date: ", "- Machine: ", "- Python "):
        assert any(line.startswith(label) for line in quick_run.stdout.splitlines()), label
