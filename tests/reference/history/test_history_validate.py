"""The history area's step checks, each refusal at its exact place: the ones read from the steps
alone and the ones found by running them, as `ctxconf validate` reports them; and the edges a
check must let through (the smallest window, a whole number written with a fraction)."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ctxconf.reference.history import run_history_case
from ctxconf.reference.history.checks import step_problems
from ctxconf.reference.history.steps import StepFailed
from ctxconf.specdata.paths import bundled_spec_dir
from tests.cli import ctxconf

SPEC = bundled_spec_dir()
LOOP: dict[str, Any] = json.loads((SPEC / "loop.json").read_text(encoding="utf-8"))

Step = dict[str, Any]
START: Step = {"op": "start", "window": 400, "vision": False}


def user(entry_id: str) -> Step:
    return {"op": "user", "id": entry_id, "text": "Read the cache."}


def calling(entry_id: str, *calls: str) -> Step:
    made = [{"call": call, "tool": "read", "args": {"path": "cache.py"}} for call in calls]
    return {"op": "assistant", "id": entry_id, "calls": made}


def answer(entry_id: str, call: str) -> Step:
    return {"op": "result", "id": entry_id, "call": call, "text": "class Cache: ..."}


def trim(tokens: object) -> Step:
    return {"op": "trim", "id": "t1", "tokens": tokens}


TURN: list[Step] = [
    user("u1"),
    {"op": "assistant", "id": "a1", "text": "Read."},
    {"op": "end_turn"},
]

# (id, steps, place below the case, code, words the message holds)
REFUSED: list[tuple[str, list[Step], str, str, str]] = [
    ("torn-crash-first", [START, {"op": "crash", "torn": True}], "/steps/1/torn",
     "hist-torn-nothing", "no write"),
    ("torn-crash-after-a-reload",
     [START, *TURN, {"op": "crash"}, {"op": "reload"}, {"op": "crash", "torn": True}],
     "/steps/6/torn", "hist-torn-nothing", "no write"),
    ("shake-without-an-id", [START, *TURN, {"op": "command", "text": "/shake"}], "/steps/4",
     "hist-command-id", "/shake"),
    ("compact-command-without-an-id",
     [START, *TURN, {"op": "command", "text": "/compact keep the numbers"}], "/steps/4",
     "hist-command-id", "/compact"),
    ("end-turn-with-an-open-call", [START, user("u1"), calling("a1", "c1"), {"op": "end_turn"}],
     "/steps/3", "hist-open-call", "c1"),
    ("id-of-a-fork-copy",
     [START, *TURN, {"op": "fork", "name": "f"}, user("f-1")], "/steps/5", "hist-id-reused",
     "f-1"),
    ("call-made-again-on-the-path",
     [START, user("u1"), calling("a1", "c1"), answer("r1", "c1"), calling("a2", "c1")],
     "/steps/4", "hist-call-reused", "c1"),
    ("call-made-twice-in-one-message", [START, user("u1"), calling("a1", "c1", "c1")],
     "/steps/2", "hist-call-reused", "c1"),
    ("result-for-an-answered-call",
     [START, user("u1"), calling("a1", "c1"), answer("r1", "c1"), answer("r2", "c1")],
     "/steps/4", "hist-unknown-call", "not open on the path"),
    ("damage-to-an-unwritten-entry", [START, user("u1"), {"op": "damage", "entry": "u1"}],
     "/steps/2", "hist-damage-unwritten", "is not written"),
    ("budget-a-boolean", [START, *TURN, trim(True)], "/steps/4", "hist-number",
     "is not a whole number"),
    ("budget-a-fraction", [START, *TURN, trim(Decimal("2.5"))], "/steps/4", "hist-number",
     "is not a whole number"),
    ("window-of-no-token", [{**START, "window": 0}, *TURN], "/steps/0", "hist-number", "window"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("steps", "place", "code", "words"),
    [refused[1:] for refused in REFUSED],
    ids=[refused[0] for refused in REFUSED],
)
def test_a_refusal_is_placed_at_its_step(
    steps: list[Step], place: str, code: str, words: str
) -> None:
    problems = list(step_problems(steps))
    assert [(below, found) for below, _, found in problems] == [(place, code)], problems
    assert words in problems[0][1]


@pytest.mark.parametrize(
    ("steps", "place"),
    [refused[1:3] for refused in REFUSED],
    ids=[refused[0] for refused in REFUSED],
)
def test_running_a_refused_case_stops_at_that_step(steps: list[Step], place: str) -> None:
    with pytest.raises(StepFailed) as failed:
        run_history_case({"steps": steps}, LOOP)
    assert place.startswith(f"/steps/{failed.value.index}")


def test_a_call_that_is_no_object_is_left_to_the_schema() -> None:
    steps = [START, user("u1"), {"op": "assistant", "id": "a1", "calls": ["c1"]}]
    assert list(step_problems(steps)) == []


def test_the_smallest_window_is_one_token() -> None:
    steps = [{**START, "window": 1}, *TURN, {"op": "request"}]
    assert list(step_problems(steps)) == []
    assert run_history_case({"steps": steps}, LOOP)[-1].startswith("--- user u1 ---")


def test_a_whole_number_written_with_a_fraction_is_that_number() -> None:
    written = [START, *TURN, trim(Decimal("10.0")), {"op": "request"}]
    plain = [START, *TURN, trim(10), {"op": "request"}]
    assert list(step_problems(written)) == []
    assert run_history_case({"steps": written}, LOOP) == run_history_case({"steps": plain}, LOOP)


@pytest.mark.slow
def test_validate_places_every_refusal_and_survives_a_call_that_is_no_object(
    tmp_path: Path,
) -> None:
    spec = tmp_path / "spec"
    shutil.copytree(SPEC, spec)
    path = spec / "conformance" / "history.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    first = len(doc["cases"])
    odd = [START, user("u1"), {"op": "assistant", "id": "a1", "calls": ["c1"]}]
    for name, steps in [(refused[0], refused[1]) for refused in REFUSED] + [("odd-call", odd)]:
        doc["cases"].append(
            {
                "name": name,
                "description": "Refused.",
                "rules": ["hist.tree.path"],
                "steps": steps,
                "expect": [""] * len(steps),
            }
        )
    # A Decimal budget is written as the number it is: validate reads it back exactly.
    path.write_text(json.dumps(doc, indent=2, default=float), encoding="utf-8")
    done = ctxconf("validate", "--spec", spec, expect=1)
    output = done.stdout + done.stderr
    for offset, refused in enumerate(REFUSED):
        assert f"/cases/{first + offset}{refused[2]}" in output, (refused[0], output)
    assert f"/cases/{first + len(REFUSED)}/steps/2/calls/0" in output, output
