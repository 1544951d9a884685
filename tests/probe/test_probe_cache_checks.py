"""The cache checks: each has fakes that fail it, in every API shape where its fault applies,
and a clean twin in the same shape that passes it; the cache figures of each fault are those
its provider's rule gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxconf.probe import results
from ctxconf.probe.checks import CheckResult, judge, judge_run
from ctxconf.probe.harness import ProbeRun, run_probe
from ctxconf.probe.profile import load_profile
from ctxconf.probe.scenario import load_scenario

from .helpers import fake_profile


def _probe(folder: Path, shape: str, faults: tuple[str, ...] = ()) -> ProbeRun:
    folder.mkdir(parents=True)
    profile = load_profile(str(fake_profile(folder, shape, faults)))
    return run_probe(profile, load_scenario("basic"), folder / "logs")


def _checks(run: ProbeRun) -> dict[str, CheckResult]:
    return {c.id: c for c in judge(run)}


def _rows(run: ProbeRun) -> list[dict[str, Any]]:
    data = results.to_data(run, judge_run(run), [])
    return [r for s in data["cache"]["sessions"] for r in s["requests"]]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("shape", "fault", "check_id"),
    [
        ("anthropic", "no-cache-marks", "cache-markers"),
        ("anthropic", "fifth-mark", "cache-markers"),
        ("chat", "moving-cache-key", "cache-markers"),
        ("responses", "moving-cache-key", "cache-markers"),
        ("chat", "changing-effort", "params-stable"),
        ("responses", "changing-effort", "params-stable"),
        ("anthropic", "changing-effort", "params-stable"),
        ("gemini", "changing-effort", "params-stable"),
    ],
)
def test_a_cache_fault_fails_its_check_and_the_clean_twin_passes_it(
    tmp_path: Path, shape: str, fault: str, check_id: str
) -> None:
    clean = _checks(_probe(tmp_path / "clean", shape))[check_id]
    faulty = _checks(_probe(tmp_path / "faulty", shape, (fault,)))[check_id]
    assert clean.verdict == "pass", clean
    assert faulty.verdict == "fail", faulty


@pytest.mark.slow
def test_no_marks_read_and_write_nothing_and_say_so(tmp_path: Path) -> None:
    run = _probe(tmp_path / "run", "anthropic", ("no-cache-marks",))
    rows = _rows(run)
    assert [(r["cache_read"], r["cache_write"]) for r in rows] == [(0, 0)] * len(rows)
    causes = [c for r in rows[1:] for c in r["diagnosis"]["causes"]]
    assert {c["kind"] for c in causes} == {"breakpoint-missing"}
    assert all(r["diagnosis"]["lost"] == r["diagnosis"]["shared"] > 0 for r in rows[1:])
    assert "none of 6 requests" in _checks(run)["cache-markers"].summary


@pytest.mark.slow
def test_a_fifth_mark_is_refused_and_recorded_with_the_apis_message(tmp_path: Path) -> None:
    run = _probe(tmp_path / "run", "anthropic", ("fifth-mark",))
    refused = [r for r in _rows(run) if r["refused"]]
    assert refused and refused[0]["refused"] == (
        "A maximum of 4 blocks with cache_control may be provided. Found 5."
    )
    assert refused[0]["input_total"] is None and refused[0]["cost_usd"] is None
    assert refused[0]["diagnosis"]["causes"][0]["kind"] == "breakpoint-limit"


@pytest.mark.slow
def test_a_run_whose_every_request_is_refused_says_so(tmp_path: Path) -> None:
    # Five marks on every request: each is refused with the API's 400, none is answered. The
    # cache check names the refusal; the others have nothing answered to judge.
    checks = _checks(_probe(tmp_path / "run", "anthropic", ("five-marks-always",)))
    markers = checks["cache-markers"]
    assert markers.verdict == "fail", markers
    assert markers.summary == (
        "request 1 was refused: A maximum of 4 blocks with cache_control may be provided. Found 5."
    )
    assert checks["system-once"].verdict == "error"


@pytest.mark.slow
def test_a_key_made_anew_by_each_process_reads_nothing_in_the_second(tmp_path: Path) -> None:
    run = _probe(tmp_path / "run", "chat", ("moving-cache-key",))
    process = [p.last_request for p in run.sessions[0].processes]
    rows = _rows(run)
    second = next(r for r in rows if r["n"] > process[0])
    assert second["cache_read"] == 0
    causes = second["diagnosis"]["causes"]
    assert causes[0]["kind"] == "parameter" and "prompt_cache_key" in causes[0]["detail"]
    # Within a process the key holds, and the cache reads.
    assert all(r["cache_read"] > 0 for r in rows[1:] if r["n"] <= process[0])


def test_gemini_declares_nothing_so_its_markers_are_not_testable(tmp_path: Path) -> None:
    checks = _checks(_probe(tmp_path / "run", "gemini"))
    assert checks["cache-markers"].verdict == "not-testable"
    assert checks["params-stable"].verdict == "pass"
