"""The history area's case file against its spec text: the examples are case outputs, every rule
has a case free of decisions, and the situations a decision turns on stay in its own cases."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctxconf.reference import run_area_case
from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.spectext.decisions import load_decisions
from ctxconf.spectext.rules import parse_rules
from ctxconf.userfiles.limits import parse_exact_float
from tests.spec_examples import examples_not_shown

SPEC = bundled_spec_dir()
MD = (SPEC / "history.md").read_text(encoding="utf-8")
LOOP: dict[str, Any] = json.loads((SPEC / "loop.json").read_text(encoding="utf-8"))
DOC: dict[str, Any] = json.loads(
    (SPEC / "conformance" / "history.json").read_text(encoding="utf-8"),
    parse_float=parse_exact_float,
)
CASES: list[dict[str, Any]] = DOC["cases"]
RULES = parse_rules(MD)
DECISIONS = {a for a, d in load_decisions(SPEC).items() if d.path and d.path.name == "history.md"}
# Steps that only look: allowed while a turn is open, whatever the decisions.
LOOKING = {"request", "tree", "transcript", "user", "assistant", "result", "overflow"}


def _tagged(anchor: str) -> list[dict[str, Any]]:
    return [case for case in CASES if anchor in case["rules"]]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_reference_passes_case(case: dict[str, Any]) -> None:
    assert run_area_case("history", case, LOOP) == case["expect"]


def test_every_example_of_history_md_is_a_case_output() -> None:
    count, missing = examples_not_shown(MD, CASES)
    assert count >= 8
    assert not missing, missing


def test_every_rule_has_a_case_and_every_case_names_rules_of_the_text() -> None:
    named = {anchor for case in CASES for anchor in case["rules"]}
    assert set(RULES) - named == set()
    assert named - set(RULES) == set()


def test_the_decisions_are_the_texts_decision_rules() -> None:
    marked = {a for a, rule in RULES.items() if rule.text.lstrip().startswith("Decision:")}
    assert marked == DECISIONS
    assert len(DECISIONS) == 19


@pytest.mark.parametrize("anchor", sorted(set(RULES) - DECISIONS))
def test_every_other_rule_has_a_case_free_of_decisions(anchor: str) -> None:
    assert any(not DECISIONS & set(case["rules"]) for case in _tagged(anchor)), anchor


def test_characters_beyond_the_bmp_are_only_in_the_token_measures_cases() -> None:
    """Counting UTF-16 units instead of code points differs only on such characters."""
    for case in CASES:
        text = json.dumps(case["steps"], ensure_ascii=False, default=str)
        astral = any(ord(c) > 0xFFFF for c in text)
        assert astral == ("hist.tokens.measure" in case["rules"]), case["name"]


def test_only_the_waiting_decisions_cases_act_inside_a_turn() -> None:
    """An operation that writes, asked for between a person's message and the turn's end, is
    what `hist.turn.writes-between` decides; no other case asks for one."""
    for case in CASES:
        open_turn, acted = False, False
        for step in case["steps"]:
            op = step["op"]
            if op == "user":
                open_turn = True
            elif op in ("end_turn", "crash"):
                open_turn = False
            elif open_turn and op not in LOOKING:
                acted = acted or not (op == "command" and step["text"] in ("/context", "/tree"))
        assert acted == ("hist.turn.writes-between" in case["rules"]), case["name"]


def test_a_crash_after_an_answered_call_inside_a_turn_is_the_boundarys_case() -> None:
    """Whether a result answering every call of its message is a boundary is what
    `hist.turn.boundary` decides: no other case crashes after one inside a turn."""
    for case in CASES:
        open_calls: set[str] = set()
        answered_in_turn = crashed_after = False
        for step in case["steps"]:
            op = step["op"]
            if op == "user":
                answered_in_turn = False
            elif op == "assistant":
                open_calls |= {call["call"] for call in step.get("calls", [])}
            elif op == "result":
                open_calls.discard(step["call"])
                answered_in_turn = answered_in_turn or not open_calls
            elif op == "end_turn":
                answered_in_turn = False
            elif op == "crash":
                crashed_after = crashed_after or answered_in_turn
                open_calls, answered_in_turn = set(), False
        assert crashed_after == ("hist.turn.boundary" in case["rules"]), case["name"]
