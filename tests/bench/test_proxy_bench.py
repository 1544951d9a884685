"""The proxy benchmark runs to the end on short streams and prints a row per upstream and load,
each with the streams it held open.

Only that it completes: timings depend on the machine, so nothing here asserts on them.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.slow  # runs a benchmark, and a proxy process


def test_the_quick_run_prints_a_row_per_load_with_its_streams_held() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "proxy_bench.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    cells = [[cell.strip() for cell in row.split("|")[1:5]] for row in rows[1:]]
    # upstream, load, streams, and the fewest others open as a measured request began: all
    held = [["held", "1", "0"], ["held", "8", "7"]]
    assert cells == [[kind, *row] for kind in ("mock", "light") for row in held]
