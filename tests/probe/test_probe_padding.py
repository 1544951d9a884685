"""A small harness's date bug at a realistic size (its prompt made again by each process, the date
in it): with `--padding` the same bug costs what the prompt kept would have read, notes and all,
and the fix saves it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli import ctxconf
from tests.probe.helpers import fake_profile

pytestmark = pytest.mark.slow  # plays the suite's own harness


def _probe(tmp_path: Path, name: str, faults: tuple[str, ...], *more: str) -> tuple[Any, str]:
    folder = tmp_path / name
    folder.mkdir()
    profile = fake_profile(folder, "chat", faults)
    out = folder / "r.json"
    done = ctxconf(
        "probe", "--harness", profile, "--scenario", "midnight", "--json", out, *more, expect=None
    )
    return json.loads(out.read_text(encoding="utf-8")), done.stdout


def _lost(data: dict[str, Any]) -> tuple[int, list[str]]:
    totals = data["cache"]["totals"]
    kinds = sorted(
        {
            c["kind"]
            for s in data["cache"]["sessions"]
            for r in s["requests"]
            if r["diagnosis"]
            for c in r["diagnosis"]["causes"]
        }
    )
    return totals["lost"], kinds


def test_padded_the_date_bug_costs_the_notes_too(tmp_path: Path) -> None:
    small, _ = _probe(tmp_path, "small", ("date-per-process",))
    padded, _ = _probe(tmp_path, "padded", ("date-per-process",), "--padding", "2000")
    # What the new day's prompt breaks grows by the notes that follow it.
    assert _lost(padded)[0] > _lost(small)[0] + 1500


def test_padded_the_date_bug_shows_its_cost_and_the_fix_saves_it(tmp_path: Path) -> None:
    buggy, stdout = _probe(tmp_path, "buggy", ("date-per-process",), "--padding", "2000")
    assert "padded with project notes of about 2,000 tokens in the first turn's message" in stdout
    lost, kinds = _lost(buggy)
    # The new day's prompt breaks every token after it: the notes of the first message among
    # them, all of which the prompt kept would have read.
    assert "system-date" in kinds and lost > 2000
    assert "lost nothing it could save" not in stdout
    fixed, _ = _probe(tmp_path, "fixed", (), "--padding", "2000")
    assert _lost(fixed)[0] == 0
    assert fixed["cache"]["totals"]["hit_rate"] > buggy["cache"]["totals"]["hit_rate"]
