"""The suite catches a broken reference: every mutant fails a case tagged with the rule it breaks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxconf.paths import bundled_spec_dir
from ctxconf.reference import ContextConfig
from ctxconf.spec_rules import parse_rules

from .mutants import MUTANTS, Mutant, load_mutant

CASES: list[dict[str, Any]] = json.loads(
    (bundled_spec_dir() / "conformance" / "context.json").read_text(encoding="utf-8")
)["cases"]


def _failing_cases(module: Any, cases: list[dict[str, Any]]) -> list[str]:
    config = ContextConfig.load()
    failing = []
    for case in cases:
        try:
            outputs = module.run_case(case, config)
        except Exception:
            failing.append(case["name"])
            continue
        if outputs != case["expect"]:
            failing.append(case["name"])
    return failing


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: f"{m.rule}:{m.name}")
def test_mutant_fails_a_case_of_its_rule(mutant: Mutant, tmp_path: Path) -> None:
    module = load_mutant(mutant, tmp_path)
    tagged = [case for case in CASES if mutant.rule in case["rules"]]
    assert tagged, f"no case is tagged {mutant.rule}"
    assert _failing_cases(module, tagged), (
        f"mutant {mutant.name} breaks {mutant.rule}, yet every case tagged with it passes"
    )


def test_every_rule_has_a_mutant() -> None:
    md = bundled_spec_dir() / "context.md"
    anchors = set(parse_rules(md.read_text(encoding="utf-8"), md))
    assert anchors, "spec/context.md declares no rules"
    assert anchors == {mutant.rule for mutant in MUTANTS}


def test_unmutated_copy_passes_every_case(tmp_path: Path) -> None:
    # The mutant loader itself must not break the reference.
    module = load_mutant(Mutant("ctx.none", "identity", "session.py", ()), tmp_path)
    assert _failing_cases(module, CASES) == []
