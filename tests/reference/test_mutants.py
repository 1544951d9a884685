"""The suite catches a broken reference: each mutant fails a case tagged with the rule it breaks."""

from __future__ import annotations

import sys

import pytest

import ctxconf.reference
from ctxconf.reference import AREAS
from ctxconf.spectext.rules import load_rules
from tests.bundled_suite import CASES, SPEC, failing_cases
from tests.decision_variants import DECISION_VARIANTS
from tests.mutants import MUTANTS, Mutant, load_mutant


@pytest.mark.slow
@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: f"{m.rule}:{m.name}")
def test_mutant_fails_a_case_of_its_rule(mutant: Mutant) -> None:
    module = load_mutant(mutant)
    tagged = [(area, case) for area, case in CASES if mutant.rule in case["rules"]]
    assert tagged, f"no case is tagged {mutant.rule}"
    assert failing_cases(module, tagged), (
        f"mutant {mutant.name} breaks {mutant.rule}, yet every case tagged with it passes"
    )


def test_every_rule_has_a_mutant() -> None:
    anchors = set(load_rules(SPEC))
    for area in ("ctx", "pfx"):
        declared = any(anchor.startswith(area + ".") for anchor in anchors)
        assert declared, f"the spec declares no {area}.* rules"
    # A decision's other reading is its mutant (tests/reference/test_decisions.py runs it on every
    # case).
    assert anchors == {mutant.rule for mutant in MUTANTS} | set(DECISION_VARIANTS)


def test_every_area_has_cases() -> None:
    assert {area for area, _ in CASES} == set(AREAS)


def test_unmutated_copy_passes_every_case() -> None:
    # The mutant loader itself must not break the reference.
    module = load_mutant(Mutant("ctx.none", "identity", "context/session.py", ()))
    assert failing_cases(module, CASES) == []


def test_a_mutant_shares_only_what_its_edit_cannot_reach() -> None:
    # A mutant of context/session.py has its own session and the package above it, shares the
    # modules that do not import it (a history store), and leaves the reference as it was.
    mutant = next(m for m in MUTANTS if m.file == "context/session.py")
    name = load_mutant(mutant).__name__
    for own in ("context.session", "context", ""):
        assert sys.modules[f"{name}.{own}".rstrip(".")] is not _real(own)
    assert sys.modules[f"{name}.history.store"] is _real("history.store")
    assert failing_cases(ctxconf.reference) == []


def _real(module: str) -> object:
    return sys.modules[f"ctxconf.reference.{module}".rstrip(".")]
