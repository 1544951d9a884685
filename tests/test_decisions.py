"""Decision isolation: reading one decision the other way costs exactly that decision's cases.

For each decision of the spec, a variant of the reference takes the other reading; it must fail
every case tagged with the decision and pass every other case. Every other rule keeps a case that
names no decision, and the wrong shortcuts of `decision_variants.SHORTCUTS` each fail a case of
the rule they break.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxconf.paths import bundled_spec_dir
from ctxconf.spec_decisions import load_decisions

from .decision_variants import DECISION_VARIANTS, SHORTCUTS
from .mutants import Mutant, load_mutant

SPEC = bundled_spec_dir()
LOOP: dict[str, Any] = json.loads((SPEC / "loop.json").read_text(encoding="utf-8"))
CASES: list[tuple[str, dict[str, Any]]] = [
    (doc["area"], case)
    for doc in (
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((SPEC / "conformance").glob("*.json"))
    )
    for case in doc["cases"]
]
DECISIONS = load_decisions(SPEC)


def _failing(module: Any) -> set[str]:
    failing = set()
    for area, case in CASES:
        try:
            outputs = module.run_area_case(area, case, LOOP)
        except Exception:
            outputs = None
        if outputs != case["expect"]:
            failing.add(case["name"])
    return failing


def _tagged(anchor: str) -> set[str]:
    return {case["name"] for _, case in CASES if anchor in case["rules"]}


def test_every_decision_has_a_variant() -> None:
    assert DECISIONS, "the spec has no Decisions table"
    assert set(DECISIONS) == set(DECISION_VARIANTS)


@pytest.mark.parametrize("anchor", sorted(DECISION_VARIANTS))
def test_the_other_reading_fails_exactly_the_decisions_cases(anchor: str, tmp_path: Path) -> None:
    failing = _failing(load_mutant(DECISION_VARIANTS[anchor], tmp_path))
    tagged = _tagged(anchor)
    assert tagged, f"no case is tagged {anchor}"
    assert not failing - tagged, (
        f"the other reading of {anchor} also fails {sorted(failing - tagged)}"
    )
    assert not tagged - failing, (
        f"cases tagged {anchor} pass its other reading: {sorted(tagged - failing)}"
    )


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
def test_a_shortcut_fails_a_case_of_its_rule(shortcut: Mutant, tmp_path: Path) -> None:
    failing = _failing(load_mutant(shortcut, tmp_path)) & _tagged(shortcut.rule)
    assert failing, f"the shortcut {shortcut.name} passes every case tagged {shortcut.rule}"
