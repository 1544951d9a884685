"""Ctrl-C writes what was found: an interrupted probe ends its harness, writes the results file,
the page and the console's summary of the turns played, says every check it could not judge is
so for the interruption, and exits 130; in a batch each pair's line says it was interrupted and
keeps what its probe printed."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from ctxconf.probe import results
from ctxconf.probe.checks import judge_run
from ctxconf.probe.harness import ProbeRun, ProcessRun, SessionRun
from ctxconf.probe.profile import load_profile
from ctxconf.probe.scenario import load_scenario
from tests.cli import ctxconf_interrupted
from tests.paths import PROBE_SCHEMAS

from .helpers import fake_profile


def _answered(log: Path) -> bool:
    """Whether the mock has answered a request of the harness's: it is in its turn now."""
    try:
        lines = log.read_text().splitlines()
    except OSError:
        return False
    return any(json.loads(line).get("kind") == "answer" for line in lines if line.endswith("}"))


def _schema_errors(data: object) -> list[str]:
    schema = json.loads((PROBE_SCHEMAS / "results.schema.json").read_text())
    return [e.message for e in Draft202012Validator(schema).iter_errors(data)]


@pytest.mark.slow
def test_ctrl_c_in_a_turn_writes_the_results_the_page_and_the_console_summary(
    tmp_path: Path,
) -> None:
    # The harness sends its first request, then hangs inside turn 1 until it is ended.
    profile = fake_profile(tmp_path, "chat", variant="hangs_after_first")
    out = tmp_path / "r"
    done = ctxconf_interrupted(
        "probe", "--harness", profile, "--json", out.with_suffix(".json"),
        "--html", out.with_suffix(".html"),
        ready=lambda: _answered(out.with_suffix(".requests") / "requests-1.jsonl"),
    )  # fmt: skip
    data = json.loads(out.with_suffix(".json").read_text())
    assert _schema_errors(data) == []
    assert data["interrupted"] == "SIGINT" and data["exit_code"] == 130
    assert data["requests"] == 1
    assert [s["reason"] for s in data["shortfalls"]] == [
        "interrupted by SIGINT in turn 1: turns 1 and 2 not played to the end"
    ]
    (process,) = data["processes"]
    assert process["interrupted"] and process["exit_code"] is None
    judged = [c for c in data["checks"] if c["verdict"] != "not-testable"]
    assert judged and all(
        c["verdict"] == "error" and c["summary"].startswith("interrupted by SIGINT") for c in judged
    ), judged
    lines = done.stdout.splitlines()
    assert lines[0].endswith("scenario basic: 1 requests"), done
    assert lines[1] == "  [1] interrupted by SIGINT in turn 1: turns 1 and 2 not played to the end"
    assert any(line.startswith("  cache, session 1 under openai: input ") for line in lines)
    assert lines[-2] == f"1 cause, {len(judged)} checks could not be judged"
    assert lines[-1].startswith("interrupted by SIGINT: what the run found is in ")
    assert "interrupted by SIGINT in turn 1" in out.with_suffix(".html").read_text()


@pytest.mark.slow
def test_ctrl_c_in_a_batch_says_interrupted_on_each_line_and_keeps_what_each_probe_printed(
    tmp_path: Path,
) -> None:
    hangs = fake_profile(tmp_path, "chat", variant="hangs_after_first")
    clean = fake_profile(tmp_path, "chat")
    folder = tmp_path / "out"
    first = folder / f"{hangs.stem}-basic.requests" / "requests-1.jsonl"
    done = ctxconf_interrupted(
        "probe", "--harness", hangs, "--harness", clean, "--jobs", "1", "--out", folder,
        ready=lambda: _answered(first),
    )  # fmt: skip
    pairs = [line for line in done.stdout.splitlines() if line.startswith("[")]
    assert len(pairs) == 2, done
    assert all(": exit 130 in " in line and "interrupted" in line for line in pairs), pairs
    printed = (folder / f"{hangs.stem}-basic.txt").read_text()
    assert "[1] interrupted by SIGINT in turn 1" in printed
    assert json.loads((folder / f"{hangs.stem}-basic.json").read_text())["interrupted"] == "SIGINT"
    assert not (folder / f"{clean.stem}-basic.json").exists()  # never started
    assert (folder / f"{clean.stem}-basic.txt").read_text() == "not started: interrupted\n"


# --- what an interruption leaves unplayed, from runs made by hand -----------------------------


def _run(folder: Path, scenario: str, sessions: list[SessionRun]) -> ProbeRun:
    profile = load_profile(str(fake_profile(folder)))
    now = datetime.now().astimezone()
    run = ProbeRun(profile, load_scenario(scenario), "1.0", now, now, None, sessions)
    run.interrupted = "SIGINT"
    return run


def _process(turn: int, exit_code: int, first: int, last: int) -> ProcessRun:
    return ProcessRun(0, [turn], ["h"], exit_code, 1.0, False, "", "", first, last)


def _reasons(run: ProbeRun) -> list[str]:
    return [f.reason for f in judge_run(run).shortfalls]


def test_before_the_first_turn_nothing_was_played(tmp_path: Path) -> None:
    run = _run(tmp_path, "basic", [])
    assert _reasons(run) == [
        "interrupted by SIGINT before turn 1: turns 1 and 2 not played to the end"
    ]
    assert results.to_data(run, judge_run(run), [])["exit_code"] == 130


def test_between_two_turns_the_turn_played_is_judged_and_the_next_is_named(
    tmp_path: Path,
) -> None:
    # Turn 1's process ended without a request: its own shortfall stands beside the
    # interruption's, which came before turn 2.
    session = SessionRun(0, None, [], [_process(0, 1, 0, 0)])
    reasons = _reasons(_run(tmp_path, "basic", [session]))
    assert len(reasons) == 2 and reasons[0].startswith("turn 1 sent no request: ")
    assert reasons[1] == "interrupted by SIGINT before turn 2: turn 2 not played to the end"


def test_between_two_sessions_the_later_one_is_named(tmp_path: Path) -> None:
    played = [_process(0, 0, 0, 4), _process(1, 0, 4, 6)]
    run = _run(tmp_path, "two-days", [SessionRun(0, None, [], played)])
    assert _reasons(run)[-1] == "interrupted by SIGINT after session 1: 1 later session not played"


def test_an_uninterrupted_run_says_so(tmp_path: Path) -> None:
    run = _run(tmp_path, "basic", [])
    run.interrupted = None
    data = results.to_data(run, judge_run(run), [])
    assert data["interrupted"] is None and data["exit_code"] in (0, 1)
    assert not any("interrupted" in s["reason"] for s in data["shortfalls"])
