"""A pause between turns passes on the provider's clock alone (the `idle` scenario): what expired
is the provider's cause `expired`, with the mark, its lifetime and the pause, and never a
missing mark; each figure as the provider's lifetimes give it."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from ctxconf.probe import results
from ctxconf.probe.checks import judge_run
from ctxconf.probe.harness import ProbeRun, run_probe
from ctxconf.probe.profile import load_profile
from ctxconf.probe.scenario import load_scenario

from .helpers import fake_profile


def _probe(folder: Path, shape: str, faults: tuple[str, ...] = ()) -> ProbeRun:
    folder.mkdir(parents=True)
    profile = load_profile(str(fake_profile(folder, shape, faults)))
    return run_probe(profile, load_scenario("idle"), folder / "logs")


def _data(run: ProbeRun) -> dict[str, Any]:
    return results.to_data(run, judge_run(run), [])


def _checks(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in data["checks"]}


def _times(run: ProbeRun) -> list[float]:
    return [
        float(e["cache"]["at"])
        for e in run.sessions[0].entries
        if isinstance(e.get("cache"), dict) and e.get("kind") == "answer"
    ]


@pytest.mark.slow
def test_an_hour_s_mark_outlives_six_minutes_and_not_sixty_one(tmp_path: Path) -> None:
    run = _probe(tmp_path / "run", "anthropic", ("hour-mark",))
    data = _data(run)
    rows = data["cache"]["sessions"][0]["requests"]
    times = _times(run)
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # Two requests a turn (the call, then the answer): the pauses come before requests 3 and 5.
    assert len(rows) == 6 and [round(g) >= 360 for g in gaps] == [False, True, False, True, False]
    assert gaps[3] >= 3660
    expired = {
        r["n"]: [c for c in r["diagnosis"]["causes"] if c["kind"] == "expired"]
        for r in rows
        if r["diagnosis"]
    }
    # After 6 minutes the system's hour entry is read; the five-minute one is gone.
    third = rows[2]
    assert third["cache_read"] > 0 and third["cache_read"] < rows[1]["input_total"]
    (after_six,) = expired[third["n"]]
    assert "lives 5 min" in after_six["detail"] and "6 min" in after_six["detail"]
    assert after_six["anchor"] is None
    # After 61 minutes both are gone: nothing is read, and the cause names the hour.
    fifth = rows[4]
    assert fifth["cache_read"] == 0
    (after_hour,) = expired[fifth["n"]]
    assert "lives 5 min, and 1 h 1 min passed" in after_hour["detail"]
    assert "; so did the entry of" in after_hour["detail"]
    assert "at system.0, which lives 1 h: the provider dropped them" in after_hour["detail"]
    for row in (third, fifth):
        diagnosis = row["diagnosis"]
        assert [c["kind"] for c in diagnosis["causes"]] == ["expired"]
        assert diagnosis["lost"] == 0 and diagnosis["lost_other"] > 0
    assert _checks(data)["cache-markers"]["verdict"] == "pass"


@pytest.mark.slow
def test_five_minute_marks_lose_everything_to_the_lifetime_and_no_mark_is_blamed(
    tmp_path: Path,
) -> None:
    data = _data(_probe(tmp_path / "run", "anthropic"))
    rows = data["cache"]["sessions"][0]["requests"]
    third = rows[2]
    assert third["cache_read"] == 0
    causes = third["diagnosis"]["causes"]
    assert [c["kind"] for c in causes] == ["expired"]
    assert third["diagnosis"]["lost_other"] == rows[1]["cache_read"] + rows[1]["cache_write"]
    assert _checks(data)["cache-markers"]["verdict"] == "pass"


@pytest.mark.slow
def test_a_missing_mark_still_fails_through_the_pauses(tmp_path: Path) -> None:
    data = _data(_probe(tmp_path / "run", "anthropic", ("no-cache-marks",)))
    assert _checks(data)["cache-markers"]["verdict"] == "fail"


@pytest.mark.slow
def test_an_openai_prompt_is_held_five_minutes_after_its_last_use(tmp_path: Path) -> None:
    data = _data(_probe(tmp_path / "run", "chat"))
    rows = data["cache"]["sessions"][0]["requests"]
    for row in (rows[2], rows[4]):
        assert row["cache_read"] == 0
        # What the pause took, and the 128-token steps the best case would still have lost.
        causes = {c["kind"]: c for c in row["diagnosis"]["causes"]}
        assert set(causes) == {"expired", "rounding"}, row["diagnosis"]
        assert "lives 5 min" in causes["expired"]["detail"]
        assert row["diagnosis"]["lost"] == 0 and row["diagnosis"]["loss"]["lifetime"] > 0
