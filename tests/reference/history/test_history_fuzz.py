"""The history area's fuzzing: its sessions are valid and the reference runs them, a finding
shrinks to sessions the reference still takes, its rules are guessed from what differs, and
`ctxconf fuzz --area history` finds planted faults and writes a case that fails them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from ctxconf.fuzzing.fuzz import Finding, guess_rules
from ctxconf.reference import REGISTRY, run_area_case
from ctxconf.reference.history.fuzz import RULES_GUESSED, smaller
from ctxconf.reference.history.fuzz.sessions import history_sessions
from ctxconf.reference.texts import read_loop
from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.spectext.rules import load_rules
from ctxconf.spectools.validate import validate_files
from tests.cli import Done
from tests.cli import ctxconf as run_ctxconf
from tests.paths import ROOT

pytestmark = pytest.mark.slow  # fuzzing searches

REPO = ROOT
AREA = REGISTRY["history"]
LOOP = read_loop()
CONFIG = AREA.config(LOOP)
# Faults of tests/faulty/ that seed 1 finds within a few hundred sessions: found, shrunk and
# written as a case in seconds.
FOUND_BY_FUZZING = ("history_persists_each_message", "history_trim_splits_pair")


def problems(steps: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    assert AREA.step_problems is not None
    return list(AREA.step_problems(steps))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(history_sessions())
def test_every_session_drawn_is_valid_and_the_reference_runs_it(case: dict[str, Any]) -> None:
    assert case["steps"][0]["op"] == "start"
    assert problems(case["steps"]) == []
    assert len(run_area_case("history", case, LOOP)) == len(case["steps"])


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(history_sessions(max_steps=20))
def test_every_smaller_session_is_one_the_reference_takes(case: dict[str, Any]) -> None:
    for simpler in smaller(case):
        assert len(simpler["steps"]) <= len(case["steps"])
        assert simpler["steps"][0] == case["steps"][0], "the start step stays"
        assert problems(simpler["steps"]) == []
        run_area_case("history", simpler, LOOP)


_TURN = [
    {"op": "user", "id": "u1", "text": "Go on."},
    {"op": "assistant", "id": "a1", "text": "Done."},
    {"op": "end_turn"},
]
_START = {"op": "start", "window": 200000, "vision": True}


@pytest.mark.parametrize(
    "steps, rule",
    [
        (
            [_START, *_TURN, {"op": "rewind", "label": "cp9", "id": "d1", "report": "r"}],
            "hist.rewind.unknown",
        ),
        (
            [
                _START,
                *_TURN,
                {"op": "checkpoint", "label": "cp1"},
                {"op": "rewind", "label": "cp1", "id": "d1", "report": "r"},
                {"op": "rewind", "label": "cp1", "id": "d2", "report": "r"},
            ],
            "hist.rewind.once",
        ),
        ([_START, *_TURN, {"op": "branch", "to": "u1"}], "hist.branch.edit"),
        ([_START, *_TURN, {"op": "fork", "name": "f1"}, {"op": "tree"}], "hist.fork.lineage"),
        ([_START, *_TURN[:1], {"op": "fork", "name": "f1"}], "hist.turn.writes-between"),
        ([_START, *_TURN, {"op": "command", "text": "/context"}], "hist.command.context"),
        ([_START, *_TURN, {"op": "transcript"}], "hist.persist.append-only"),
    ],
    ids=[
        "rewind-unknown",
        "rewind-once",
        "branch-edit",
        "fork-lineage",
        "busy",
        "context",
        "transcript",
    ],
)
def test_rules_are_guessed_from_the_differing_step(steps: list[dict[str, Any]], rule: str) -> None:
    case = {"steps": steps}
    expected = tuple(run_area_case("history", case, LOOP))
    actual = (*expected[:-1], "something else")
    finding = Finding(case, expected, actual, (len(steps) - 1,), area="history")
    assert rule in guess_rules(finding, CONFIG)


def test_every_rule_it_can_guess_is_a_rule_of_the_spec() -> None:
    assert RULES_GUESSED <= set(load_rules(bundled_spec_dir()))


def ctxconf(*args: str | Path, cwd: Path, expect: int) -> Done:
    """Run `python -m ctxconf` in `cwd`, with this checkout importable (for python:tests.…)."""
    return run_ctxconf(*args, cwd=cwd, expect=expect, importable=[REPO])


def test_the_reference_agrees_with_itself_on_history_sessions(tmp_path: Path) -> None:
    done = ctxconf(
        "fuzz",
        "--area",
        "history",
        "--impl",
        "reference",
        "--examples",
        "100",
        "--seed",
        "2024",
        cwd=tmp_path,
        expect=0,
    )
    assert "area history" in done.stdout
    assert "no disagreement in 100 sessions" in done.stdout, str(done)
    assert not list(tmp_path.glob("reports/*.json"))


@pytest.mark.parametrize("fault", FOUND_BY_FUZZING)
def test_a_planted_history_fault_is_found_and_becomes_a_small_failing_case(
    fault: str, tmp_path: Path
) -> None:
    impl = f"python:tests.faulty.{fault}"
    done = ctxconf(
        "fuzz",
        "--area",
        "history",
        "--impl",
        impl,
        "--seed",
        "1",
        "--examples",
        "300",
        "--out",
        tmp_path,
        cwd=tmp_path,
        expect=1,
    )
    assert "disagreement found after" in done.stdout
    (path,) = sorted(tmp_path.glob("fuzz-*.json"))
    assert validate_files([path]) == []
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["area"] == "history"
    (case,) = document["cases"]
    assert case["steps"][0]["op"] == "start"
    assert len(case["steps"]) <= 12, "the session is shrunk"
    assert case["expect"] == run_area_case("history", case, LOOP)
    assert all(rule.startswith("hist.") for rule in case["rules"])
    results = tmp_path / "results.json"
    ctxconf("run", "--impl", impl, "--cases", path, "--json", results, cwd=tmp_path, expect=1)
    ctxconf(
        "run", "--impl", "reference", "--cases", path, "--json", results, cwd=tmp_path, expect=0
    )
