"""bench/probe_times.py: the time a matrix's harnesses took, read from results files."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import probe_times


def _results(name: str, seconds: list[float], took: int, not_played: str | None = None) -> Any:
    return {
        "format": "ctxconf-probe-results",
        "harness": {"name": name},
        "started": "2026-12-02T10:00:00+00:00",
        "finished": f"2026-12-02T10:00:{took:02d}+00:00",
        "not_played": not_played,
        "processes": [{"seconds": s, "timed_out": s >= 40} for s in seconds],
    }


def test_each_harness_is_summed_and_the_floor_is_its_processes_over_the_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "slow-basic.json": _results("slow", [20.0, 40.0], 59),
        "slow-compact.json": _results("slow", [], 1, "no way into compaction"),
        "quick-basic.json": _results("quick", [1.0, 3.0, 2.0], 7),
        "matrix.json": {"rows": []},
    }
    for name, data in files.items():
        (tmp_path / name).write_text(json.dumps(data))
    assert probe_times.main([str(p) for p in sorted(tmp_path.iterdir())] + ["--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "| slow | 2 | 1 | 2 | 1 | 30.0 | 60 | 60 |" in out
    assert "| quick | 1 | 0 | 3 | 0 | 2.0 | 6 | 7 |" in out
    assert "| all | 3 | 1 | 5 | 1 | | 66 | 67 |" in out
    assert out.index("| slow |") < out.index("| quick |")  # the costliest first
    assert "at least 0.6 min" in out  # 66 s over two jobs


def test_an_unreadable_file_is_one_line_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert probe_times.main([str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"probe_times: {bad}: Expecting property name")
