"""The growth benchmark and the fuzzing memory benchmark run to the end on small inputs.

Only that they complete and print every row: timings depend on the machine.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.slow  # runs a benchmark

BENCH = ROOT / "bench"


def _run(*args: str, timeout: float = 300) -> str:
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_growth_benchmark_prints_each_size_of_each_input() -> None:
    out = _run(str(BENCH / "bench_scale.py"), "--quick")
    titles = [line for line in out.splitlines() if line.startswith("**")]
    assert len(titles) == 6, out
    sizes = [line.split("|")[1].strip() for line in out.splitlines() if line.startswith("| ")]
    assert sizes.count("1x") == 7 and sizes.count("16x") == 7, out  # recall: twice
    verdicts = [line for line in out.splitlines() if "| PASS |" in line or "| MISS |" in line]
    assert len(verdicts) == 4 + 4 + 3 * 4, out  # every size of every benchmark has one
    assert "load average (1, 5, 15 min)" in out


def test_the_fuzzing_memory_benchmark_reports_sessions_and_peak() -> None:
    out = _run(str(BENCH / "fuzz_memory.py"), "--max-time", "3", "--every", "0.2")
    assert out.startswith("batch 500: "), out
    assert "sessions in" in out and "peak resident set" in out, out


def test_the_diff_phases_add_up_beside_gnu_diff() -> None:
    out = _run(str(BENCH / "diff_phases.py"), "--rounds", "1")
    phases = [line.split("|")[1].strip() for line in out.splitlines() if line.startswith("| ")]
    assert phases[0] == "phase" and phases[-1] == "GNU `diff -u`, the whole process", out
    assert "`unified_diff` in all" in phases, out
