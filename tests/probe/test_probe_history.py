"""The crash-mid-call scenario and the history checks: a harness killed while it runs a call,
then resumed, judged on what its resumed session sends."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ctxconf.probe.checks import CheckResult, judge
from ctxconf.probe.harness import run_probe
from ctxconf.probe.profile import load_profile
from ctxconf.probe.scenario import load_scenario
from tests.cli import ctxconf
from tests.paths import PROBE_SCHEMAS, ROOT

from .helpers import FAKES, fake_profile, write_scenario

pytestmark = pytest.mark.slow  # each test plays fake harnesses through the probe

HISTORY_CHECKS = ("no-half-turn", "cold-equals-live", "truncate")
SCENARIOS = ROOT / "probe" / "data" / "scenarios"


def _probe_cli(tmp_path: Path, profile: Path, expect: int) -> dict[str, Any]:
    out = tmp_path / "r.json"
    ctxconf(
        "probe", "--harness", profile, "--scenario", "crash-mid-call", "--json", out, expect=expect
    )
    data: dict[str, Any] = json.loads(out.read_text())
    schema = json.loads((PROBE_SCHEMAS / "results.schema.json").read_text())
    assert [e.message for e in Draft202012Validator(schema).iter_errors(data)] == []
    return data


def _checks(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in data["checks"]}


@pytest.mark.parametrize(
    ("fault", "no_half_turn", "cold_equals_live", "behaviour", "exit_code"),
    [
        ((), "pass", "pass", "dropped", 0),
        # The mock refuses a call without its result as the API does, so the turn cannot go on:
        # what needs the whole turn is `error`, the fail on what was sent stands.
        (("orphan-call",), "fail", "error", None, 1),
        (("aborted-result",), "pass", "pass", "synthetic result", 0),
        (("stripped-results",), "pass", "fail", "dropped", 1),
    ],
    ids=["truncates", "orphan-call", "aborted-result", "stripped-results"],
)
def test_each_history_check_judges_each_persisting_fake_through_the_cli(
    tmp_path: Path,
    fault: tuple[str, ...],
    no_half_turn: str,
    cold_equals_live: str,
    behaviour: str | None,
    exit_code: int,
) -> None:
    profile = fake_profile(tmp_path, "chat", fault, persist=True)
    data = _probe_cli(tmp_path, profile, exit_code)
    checks = _checks(data)
    assert checks["no-half-turn"]["verdict"] == no_half_turn, checks["no-half-turn"]
    assert checks["cold-equals-live"]["verdict"] == cold_equals_live, checks["cold-equals-live"]
    if behaviour is None:
        assert checks["truncate"]["verdict"] == "error", checks["truncate"]
        assert "the API refused its request" in checks["truncate"]["summary"]
    else:
        assert checks["truncate"]["verdict"] == "info"
        assert checks["truncate"]["figures"]["behaviour"] == behaviour, checks["truncate"]
    # The crash is not a rewrite of history: what a resume may drop is judged here alone. A
    # lossy reload rewrites turn 1 at the resume before the crash too.
    prefix = "fail" if "stripped-results" in fault else "error" if behaviour is None else "pass"
    assert checks["history-prefix"]["verdict"] == prefix, checks["history-prefix"]
    assert [p["killed"] for p in data["processes"]] == [False, True, False]


def test_a_synthetic_result_is_quoted(tmp_path: Path) -> None:
    profile = fake_profile(tmp_path, "anthropic", ("aborted-result",), persist=True)
    truncate = _checks(_probe_cli(tmp_path, profile, 0))["truncate"]
    assert truncate["figures"]["result"] in truncate["summary"]
    assert truncate["figures"]["result_chars"] > 0


@pytest.mark.parametrize("shape", ["responses", "anthropic", "gemini"])
def test_an_orphaned_call_is_found_in_every_api_shape(tmp_path: Path, shape: str) -> None:
    profile = fake_profile(tmp_path, shape, ("orphan-call",), persist=True)
    checks = _checks(_probe_cli(tmp_path, profile, 1))
    assert checks["no-half-turn"]["verdict"] == "fail", checks["no-half-turn"]
    assert "call without its result" in checks["no-half-turn"]["summary"]
    # The API's refusal ends the resumed turn: turn 3 sent none of its requests, and why.
    for check_id in ("cold-equals-live", "truncate"):
        assert checks[check_id]["verdict"] == "error", checks[check_id]
        assert "the API refused its request" in checks[check_id]["summary"]


@pytest.mark.parametrize("shape", ["chat", "responses", "anthropic", "gemini"])
def test_a_synthetic_result_after_the_new_user_message_fails_no_half_turn(
    tmp_path: Path, shape: str
) -> None:
    # Before, the late result was taken to answer its call and no-half-turn passed.
    options = ("--where", "after-message")
    profile = fake_profile(tmp_path, shape, persist=True, variant="late_result", options=options)
    checks = _checks(_probe_cli(tmp_path, profile, 1))
    half = checks["no-half-turn"]
    assert half["verdict"] == "fail", half
    assert "call whose result does not follow it" in half["summary"]
    assert "its API refuses that: " in half["summary"]
    assert half["figures"]["halves"][0]["result_message"] > half["figures"]["halves"][0]["message"]


@pytest.mark.parametrize("shape", ["chat", "responses", "anthropic", "gemini"])
def test_a_synthetic_result_right_after_its_call_passes_no_half_turn(
    tmp_path: Path, shape: str
) -> None:
    options = ("--where", "after-call")
    profile = fake_profile(tmp_path, shape, persist=True, variant="late_result", options=options)
    checks = _checks(_probe_cli(tmp_path, profile, 0))
    assert checks["no-half-turn"]["verdict"] == "pass", checks["no-half-turn"]
    assert checks["truncate"]["figures"]["behaviour"] == "synthetic result"


def _judged(
    tmp_path: Path, profile: Path, scenario: str = "crash-mid-call"
) -> dict[str, CheckResult]:
    run = run_probe(load_profile(str(profile)), load_scenario(scenario), tmp_path / "logs")
    return {c.id: c for c in judge(run)}


def _assert_not_testable(checks: dict[str, CheckResult], why: str) -> None:
    _assert_verdict(checks, "not-testable", why)


def _assert_verdict(checks: dict[str, CheckResult], verdict: str, why: str) -> None:
    for check_id in HISTORY_CHECKS:
        assert checks[check_id].verdict == verdict, checks[check_id]
        assert why in checks[check_id].summary, checks[check_id]


def test_a_scenario_without_a_crash_leaves_the_history_checks_not_testable(
    tmp_path: Path,
) -> None:
    checks = _judged(tmp_path, fake_profile(tmp_path, "chat", persist=True), "basic")
    _assert_not_testable(checks, "interrupts no call")


def test_a_harness_played_in_one_process_has_no_resume_to_judge(tmp_path: Path) -> None:
    # Played in one process, nothing kills the fake: it would run the bundled scenario's
    # 30-second command to its end. The same scenario with a quick command holds the same kill.
    scenario = json.loads((SCENARIOS / "crash-mid-call.json").read_text(encoding="utf-8"))
    (killed,) = [t for t in scenario["turns"] if "kill_after_call_s" in t]
    killed["steps"] = [{"bash": "true"} if "bash" in s else s for s in killed["steps"]]
    profile = fake_profile(tmp_path, "chat", mode="stream-json")
    checks = _judged(tmp_path, profile, write_scenario(tmp_path, scenario))
    _assert_not_testable(checks, "no resume command")


def _with_resume(tmp_path: Path, resume: list[str]) -> Path:
    path = fake_profile(tmp_path, "chat", persist=True)
    profile = json.loads(path.read_text())
    profile["drive"]["resume"] = resume
    path.write_text(json.dumps(profile))
    return path


def _resumes_once(then: str) -> list[str]:
    """A resume command that resumes turn 2, then runs `then` (Python) for the turn after the
    crash, with the fake's arguments, resume flag removed, in sys.argv."""
    code = (
        "import os, sys\n"
        "mark = os.path.join(os.environ['HOME'], 'resumed-once')\n"
        "if os.path.exists(mark):\n"
        "    sys.argv.remove('--resume')\n"
        f"    {then}\n"
        "open(mark, 'w').close()\n"
        "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])\n"
    )
    fake = [str(FAKES / "fake_chat.py"), "--persist", "--resume", "{message}"]
    return [sys.executable, "-c", code, *fake]


def test_a_resume_that_sends_no_request_is_an_error_that_says_why(tmp_path: Path) -> None:
    refuse = "sys.exit('resume is not supported')"
    checks = _judged(tmp_path, _with_resume(tmp_path, _resumes_once(refuse)))
    _assert_verdict(checks, "error", "turn 3 sent no request: the process exited 1")
    assert "resume is not supported" in checks["no-half-turn"].summary


def test_a_resume_that_starts_a_new_session_is_an_error_that_says_so(tmp_path: Path) -> None:
    fresh = "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
    checks = _judged(tmp_path, _with_resume(tmp_path, _resumes_once(fresh)))
    _assert_verdict(checks, "error", "the resume of turn 3 started a new session")
    assert "started a new session" in checks["history-prefix"].summary
    assert "rewrote" not in checks["history-prefix"].summary


@pytest.mark.parametrize(
    ("turns", "pointer", "message"),
    [
        (
            [
                {"user": "a", "steps": [{"text": "x"}]},
                {"user": "b", "kill_after_call_s": 1, "steps": [{"bash": "sleep 9"}]},
            ],
            "/turns/1/kill_after_call_s",
            "needs a later turn",
        ),
        (
            [
                {"user": "a", "steps": [{"text": "x"}]},
                {"user": "b", "kill_after_call_s": 1, "steps": [{"text": "y"}]},
                {"user": "c", "steps": [{"text": "z"}]},
            ],
            "/turns/1/kill_after_call_s",
            "must be a call",
        ),
        (
            [{"user": "a", "kill_after_call_s": 0, "steps": [{"bash": "sleep 9"}]}],
            "/turns/0/kill_after_call_s",
            "",
        ),
    ],
    ids=["last-turn", "text-step", "zero-seconds"],
)
def test_a_kill_the_scenario_cannot_play_is_a_one_line_data_error(
    tmp_path: Path, turns: list[dict[str, Any]], pointer: str, message: str
) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"name": "s", "description": "d", "turns": turns}))
    done = ctxconf("probe", "--harness", fake_profile(tmp_path), "--scenario", scenario, expect=2)
    assert done.stderr.count("\n") == 1, done
    assert f"{scenario}: at {pointer}" in done.stderr and message in done.stderr
