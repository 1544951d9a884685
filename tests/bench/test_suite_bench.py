"""The suite benchmark reads pytest's closing line and times a small suite of its own."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import suite_bench

pytestmark = pytest.mark.slow  # runs a benchmark


@pytest.mark.parametrize(
    ("line", "counts"),
    [
        ("===== 2118 passed, 2 skipped in 301.20s (0:05:01) =====", {"passed": 2118, "skipped": 2}),
        ("== 3 failed, 40 passed, 1 error in 9.1s ==", {"failed": 3, "passed": 40, "errors": 1}),
        ("== 12 passed, 30 deselected in 2.0s ==", {"passed": 12, "deselected": 30}),
        ("no tests ran", {}),
    ],
)
def test_the_closing_line_is_read(line: str, counts: dict[str, int]) -> None:
    assert suite_bench.counts_of(f"....\n{line}\n") == counts


@pytest.mark.slow  # two pytest runs of its own
def test_a_small_suite_is_timed_in_both_tiers(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: long\n")
    (tmp_path / "test_two.py").write_text(
        "import pytest\n\ndef test_quick():\n    pass\n\n"
        "@pytest.mark.slow\ndef test_long():\n    pass\n"
    )
    python = Path(sys.executable)
    full = suite_bench.run_tier(tmp_path, python, "here", "full", busy=0)
    quick = suite_bench.run_tier(tmp_path, python, "here", "quick", busy=1)
    assert full.green and full.counts == {"passed": 2}
    assert quick.green and quick.counts == {"passed": 1, "deselected": 1}
    assert full.cpu > 0 and full.wall > 0
    rows = suite_bench.table([full, quick])
    assert rows[2].startswith("| here | full | 0 |") and rows[2].endswith("| 2 passed |")
    assert rows[3].endswith("| 1 passed, 1 deselected |")
