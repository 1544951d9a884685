"""`pytest --ctxconf-impl=SPEC`: one item per bundled case, failing with the runner's account."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ctxconf.paths import bundled_spec_dir

FAUX = Path(__file__).resolve().parent / "fauxmplementations"


def _case_count() -> int:
    return sum(
        len(json.loads(p.read_text(encoding="utf-8"))["cases"])
        for p in (bundled_spec_dir() / "conformance").glob("*.json")
    )


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(FAUX)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_every_bundled_case_is_an_item_and_passes_against_the_reference(tmp_path: Path) -> None:
    done = _pytest(tmp_path, "--ctxconf-impl=reference", "-v")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"collected {_case_count()} items" in done.stdout
    assert f"{_case_count()} passed" in done.stdout
    assert "context.json::reread-unchanged-is-stub PASSED" in done.stdout


def test_a_failing_case_shows_the_step_rules_and_diff(tmp_path: Path) -> None:
    done = _pytest(tmp_path, "--ctxconf-impl=python:never_stub", "-k", "reread-unchanged")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL reread-unchanged-is-stub step 1 (read)" in done.stdout
    assert "rules: ctx.id.given" in done.stdout
    assert "-[#a002 src/a.ts lines 1-2 of 2 sha 583e86b4] Unchanged since #a001" in done.stdout


def test_without_the_option_nothing_is_added(tmp_path: Path) -> None:
    done = _pytest(tmp_path)
    assert done.returncode == 5, done.stdout  # pytest's "no tests collected"
