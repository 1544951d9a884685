"""Decision isolation: reading one decision the other way costs exactly that decision's cases.

For each decision of the spec, the reference keeps a reading of it the other way
(`ctxconf.reference.READINGS`); that reading must fail every case tagged with the decision and
pass every other case, through the same `answers_read_otherwise` the runner compares failing
answers with. Every other rule keeps a case that names no decision, and the wrong shortcuts of
`decision_variants.SHORTCUTS` each fail a case of the rule they break.
"""

from __future__ import annotations

import pytest

from ctxconf.reference import answers_read_otherwise
from ctxconf.reference.readings import edited_source
from ctxconf.spectext.decisions import load_decisions
from tests.bundled_suite import CASES, LOOP, SPEC, failing_cases
from tests.decision_variants import DECISION_VARIANTS, SHORTCUTS
from tests.mutants import Mutant, load_mutant

pytestmark = pytest.mark.slow  # every decision variant over every case

DECISIONS = load_decisions(SPEC)


def _tagged(anchor: str) -> set[str]:
    return {case["name"] for _, case in CASES if anchor in case["rules"]}


def test_every_decision_has_a_reading() -> None:
    assert DECISIONS, "the spec has no Decisions table"
    assert set(DECISIONS) == set(DECISION_VARIANTS)


def _first_difference(answers: list[str], expected: list[str]) -> int | None:
    return next(
        (i for i, (a, e) in enumerate(zip(answers, expected, strict=False)) if a != e),
        None,
    )


@pytest.mark.parametrize("anchor", sorted(DECISION_VARIANTS))
def test_the_other_reading_fails_exactly_the_decisions_cases(anchor: str) -> None:
    edited_source(DECISION_VARIANTS[anchor])  # raises when an edit no longer fits
    answers = {case["name"]: answers_read_otherwise(anchor, a, case, LOOP) for a, case in CASES}
    failing = {case["name"] for _, case in CASES if answers[case["name"]] != case["expect"]}
    tagged = _tagged(anchor)
    assert tagged, f"no case is tagged {anchor}"
    assert not failing - tagged, (
        f"the other reading of {anchor} also fails {sorted(failing - tagged)}"
    )
    assert not tagged - failing, (
        f"cases tagged {anchor} pass its other reading: {sorted(tagged - failing)}"
    )
    # The runner names the decision only on what the other reading answers: it must answer
    # each of its cases at least as far as the first step where the two readings part.
    mute = sorted(
        case["name"]
        for _, case in CASES
        if case["name"] in tagged
        and _first_difference(answers[case["name"]] or [], case["expect"]) is None
    )
    assert not mute, f"the other reading of {anchor} stops before it differs in {mute}"


def test_every_other_rule_has_a_case_free_of_decisions() -> None:
    decided = set(DECISIONS)
    anchors = {anchor for _, case in CASES for anchor in case["rules"]} - decided
    lacking = sorted(
        anchor
        for anchor in anchors
        if not any(
            anchor in case["rules"] and not decided & set(case["rules"]) for _, case in CASES
        )
    )
    assert not lacking, f"every case of these rules also names a decision: {lacking}"


@pytest.mark.parametrize("shortcut", SHORTCUTS, ids=lambda m: f"{m.rule}:{m.name}")
def test_a_shortcut_fails_a_case_of_its_rule(shortcut: Mutant) -> None:
    failing = set(failing_cases(load_mutant(shortcut))) & _tagged(shortcut.rule)
    assert failing, f"the shortcut {shortcut.name} passes every case tagged {shortcut.rule}"
