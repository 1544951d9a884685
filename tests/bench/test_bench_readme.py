"""The bench README is written as every other file is: a README that cannot be written is said
before a benchmark runs (exit 2, nothing measured), and a write that fails is one line."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest

from ctxconf.userfiles.atomic import OutputError
from tests.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import bench_reference  # a script of bench/, found by the path above
import readme


def test_a_readme_that_is_a_folder_stops_the_benchmark_before_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "README.md"
    folder.mkdir()
    monkeypatch.setattr(bench_reference, "README", folder)
    monkeypatch.setattr(bench_reference, "bench_read", _never)  # the first benchmark
    monkeypatch.chdir(tmp_path)
    assert bench_reference.main(["--quick", "--write-readme"]) == 2
    assert "error: README.md: is a folder, not a regular file" in capsys.readouterr().err


def _never(*args: object) -> None:
    raise AssertionError("the benchmark ran though its README cannot be written")


def test_a_write_that_fails_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    def full() -> None:
        raise OutputError(f"README.md: cannot be written: {os.strerror(errno.ENOSPC)}")

    assert readme.written(full) is False
    assert capsys.readouterr().err.startswith(
        "error: README.md: cannot be written: No space left on device"
    )
    assert readme.written(lambda: None) is True
