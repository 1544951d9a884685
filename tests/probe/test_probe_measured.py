"""A run says whether it measured what its scenario meant: a turn that sent too little, a turn
that fell on the wrong day of the harness's clock, a resume that started anew or a kill that
came outside the call makes the checks that needed it errors, never passes."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from ctxconf.probe.checks import judge_run
from ctxconf.probe.clock import clock_misses, widened_margin
from ctxconf.probe.harness import ProbeRun, ProcessRun, SessionRun, run_probe
from ctxconf.probe.profile import load_profile
from ctxconf.probe.scenario import load_scenario

from .helpers import checks_of, fake_profile, run_fake, write_scenario

SHAPES = ["chat", "responses", "anthropic", "gemini"]
REQUEST_CHECKS = ("system-once", "no-clock", "tools-fixed", "history-prefix", "usage-shown")


@pytest.mark.slow
@pytest.mark.parametrize("shape", SHAPES)
def test_a_hang_after_one_request_errs_every_check_that_needed_the_rest(
    tmp_path: Path, shape: str
) -> None:
    # Long enough for a loaded machine to reach the first request; the hang then fills it.
    run = run_fake(tmp_path, shape, variant="hangs_after_first", timeout=8)
    checks = checks_of(run)
    for check_id in (*REQUEST_CHECKS, "reread", "long-output"):
        assert checks[check_id].verdict == "error", checks[check_id]
    summary = checks["system-once"].summary
    assert summary.startswith("turn 1 sent 1 of its 4 requests: the process timed out after")
    assert ("turns", 0) in [(f.need, f.turn) for f in judge_run(run).shortfalls]


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["chat", "gemini"])
def test_a_clean_twin_of_each_fault_measures_every_turn(tmp_path: Path, shape: str) -> None:
    run = run_fake(tmp_path, shape)
    judged = judge_run(run)
    assert judged.shortfalls == []
    assert all(c.verdict != "error" for c in judged.checks), judged.checks


@pytest.mark.slow
def test_a_resume_that_exits_having_sent_nothing_is_an_error_not_a_pass(tmp_path: Path) -> None:
    checks = checks_of(run_fake(tmp_path, "responses", variant="fails_on_resume"))
    for check_id in REQUEST_CHECKS:
        assert checks[check_id].verdict == "error", checks[check_id]
    summary = checks["history-prefix"].summary
    assert "turn 2 sent no request: the process exited 1 after" in summary
    assert "cannot be used with --trust-folder" in summary


@pytest.mark.slow
def test_a_first_turn_that_fails_does_not_let_the_next_turn_play_its_script(
    tmp_path: Path,
) -> None:
    # Turn 1 exits 1 having sent nothing; turn 2's resume finds no session and starts one, and
    # the mock, counting from its first request, plays it turn 1's steps: nothing may pass.
    failing = json.loads(fake_profile(tmp_path, "chat", variant="fails_on_resume").read_text())
    path = fake_profile(tmp_path, "chat")
    profile = json.loads(path.read_text())
    profile["drive"]["command"] = failing["drive"]["resume"]
    path.write_text(json.dumps(profile))
    run = run_probe(load_profile(str(path)), load_scenario("basic"), tmp_path / "logs")
    checks = checks_of(run)
    assert all(c.verdict in ("error", "not-testable") for c in checks.values()), checks
    assert checks["system-once"].summary.startswith("turn 1 sent no request")


@pytest.mark.slow
def test_a_kill_that_comes_after_the_turn_ended_is_an_error_for_the_history_checks(
    tmp_path: Path,
) -> None:
    checks = checks_of(
        run_fake(tmp_path, "anthropic", "crash-mid-call", variant="finishes_early", persist=True)
    )
    for check_id in ("no-half-turn", "cold-equals-live", "truncate"):
        assert checks[check_id].verdict == "error", checks[check_id]
        assert "the kill did not land inside turn 2's call: the turn ended" in (
            checks[check_id].summary
        )


# --- the clock ------------------------------------------------------------------------------


def _clocked_run(times: list[tuple[int, float]], started_clock: str) -> ProbeRun:
    """A midnight run made by hand: one process started at time 1000.0 with the clock
    `started_clock`, and requests (step, seconds after the start)."""
    scenario = load_scenario("midnight")
    start = datetime.fromisoformat(started_clock)
    entries = [
        {"n": n, "kind": "answer", "step": step, "time": 1000.0 + after, "shape": "openai-chat"}
        for n, (step, after) in enumerate(times, 1)
    ]
    process = ProcessRun(0, [0, 1], ["h"], 0, 90.0, False, "", "", 0, len(times))
    process.started_at, process.clock = 1000.0, start
    session = SessionRun(0, start, entries, [process], margins=[20.0])
    run = ProbeRun(
        load_profile("pi"), scenario, None, datetime.now(), datetime.now(), None, [session]
    )
    return run


def test_a_turn_that_ran_past_midnight_in_the_harness_clock_is_found_with_its_figures() -> None:
    run = _clocked_run([(0, 24.5), (1, 26.0), (2, 80.0), (3, 81.0)], "2027-01-15T23:59:40")
    misses = clock_misses(run.scenario, run.sessions[0])
    assert [(m.turn, m.request, m.after_start, m.late) for m in misses] == [(0, 1, 24.5, True)]
    assert widened_margin(run.scenario, run.sessions[0]) == 26.0 * 1.5 + 10


def test_a_turn_meant_for_the_next_day_that_came_before_midnight_is_found_too() -> None:
    run = _clocked_run([(0, 1.0), (1, 2.0), (2, 10.0), (3, 11.0)], "2027-01-15T23:59:40")
    misses = clock_misses(run.scenario, run.sessions[0])
    assert [(m.turn, m.late) for m in misses] == [(1, False)]
    assert widened_margin(run.scenario, run.sessions[0]) is None  # a try would not help


def test_no_more_tries_after_the_last_one_and_the_miss_is_the_reason() -> None:
    run = _clocked_run([(0, 24.5), (1, 26.0), (2, 80.0), (3, 81.0)], "2027-01-15T23:59:40")
    run.sessions[0].margins = [20.0, 49.0, 98.0]
    assert widened_margin(run.scenario, run.sessions[0]) is None
    reasons = [f.reason for f in judge_run(run).shortfalls if f.need == "clock"]
    assert reasons == [
        "turn 1 ran after midnight in the harness's clock: its request 1 came 24.5 s after its"
        " process started at 23:59:40 (3 tries, starting 20, 49, 98 s before midnight)"
    ]


def test_a_turn_on_its_day_is_no_miss() -> None:
    run = _clocked_run([(0, 1.0), (1, 2.0), (2, 60.0), (3, 61.0)], "2027-01-15T23:59:40")
    assert clock_misses(run.scenario, run.sessions[0]) == []


def _quick_midnight(folder: Path) -> str:
    """Midnight with an 8-second margin, so a slow start is cheap to show."""
    turn = {"steps": [{"read": "A.txt", "label": "read"}, {"text": "20 lines."}]}
    return write_scenario(
        folder,
        {
            "name": "quick-midnight",
            "description": "turn 1 8 s before midnight, turn 2 after it",
            "files": {"A.txt": "one\ntwo\n"},
            "sessions": [{"clock": "2027-01-15T23:59:52"}],
            "turns": [
                {**turn, "user": "Read A.txt."},
                {
                    **turn,
                    "user": "Read A.txt again.",
                    "new_process": True,
                    "clock": "2027-01-16T00:00:05",
                },
            ],
        },
    )


@pytest.mark.slow
def test_a_slow_start_costs_a_second_try_with_a_wider_margin_not_the_verdict(
    tmp_path: Path,
) -> None:
    scenario = _quick_midnight(tmp_path)
    slow = run_fake(
        tmp_path / "slow", scenario=scenario, variant="slow_start", options=("--wait", "9")
    )
    assert len(slow.sessions[0].margins) == 2 and slow.sessions[0].margins[1] > 8
    judged = judge_run(slow)
    assert [f for f in judged.shortfalls if f.need == "clock"] == []
    checks = {c.id: c for c in judged.checks}
    assert checks["date-note"].verdict == "pass", checks["date-note"]
    clean = run_fake(tmp_path / "clean", scenario=scenario)
    assert clean.sessions[0].margins == [8.0]
    assert checks_of(clean)["date-note"].verdict == "pass"
