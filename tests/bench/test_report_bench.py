"""The report benchmark runs to the end on small inputs and prints its rows.

Only that it completes and measures both reports: timings depend on the machine.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.slow  # runs a benchmark

SCRIPT = ROOT / "bench" / "report_bench.py"


def test_quick_run_measures_both_reports() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--no-browser"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| report of |")
    assert [row.split(" | ")[0] for row in rows[1:]] == [
        "| 300 failing cases",
        "| one 5 MB output",
        "| 20 cases, 1 MB output each",
    ]
