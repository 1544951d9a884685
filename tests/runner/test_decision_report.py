"""A decision is named only on evidence: the implementation's answers are the other reading's.

An implementation that reads two decisions differently gets two groups, on the console and in
the report, each with the two readings side by side; a partial one whose decision cases fail for
other reasons (an error answer, a hyphen for an em dash, no compaction table) is told of the one
decision it really reads otherwise, and its other failures stand under a heading of their own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.spectext.decisions import load_decisions
from tests.cli import ctxconf
from tests.paths import FAUX

DECISIONS = load_decisions(bundled_spec_dir())
OTHER_WAY = ("ctx.compact.escape", "ctx.edit.no-change")


def _run(tmp_path: Path, impl: str, *more: str) -> tuple[Any, dict[str, Any], str]:
    results, html = tmp_path / "r.json", tmp_path / "r.html"
    done = ctxconf(
        "run", "--impl", impl, "--json", results, "--html", html, *more, cwd=FAUX, expect=1
    )
    return done, json.loads(results.read_text(encoding="utf-8")), html.read_text(encoding="utf-8")


def _failing(data: dict[str, Any]) -> set[str]:
    return {case["name"] for case in data["cases"] if case["verdict"] not in ("pass", "skipped")}


@pytest.mark.slow
def test_two_decisions_read_otherwise_make_two_groups(tmp_path: Path) -> None:
    done, data, page = _run(tmp_path, "python:two_decisions_read_otherwise")
    assert _failing(data) == {name for a in OTHER_WAY for name in DECISIONS[a].cases}, done
    assert data["footer"]["read_otherwise"] == [
        {"decision": anchor, "cases": list(DECISIONS[anchor].cases)} for anchor in OTHER_WAY
    ]
    for anchor in OTHER_WAY:
        decision = DECISIONS[anchor]
        assert f"reads decision {anchor} differently" in done.stdout, done
        assert f"this version:  {decision.reading}" in done.stdout, done
        assert f"other reading: {decision.other}" in done.stdout, done
        assert f"reads decision {anchor} differently" in page
    assert done.stdout.count("reads decision ") == 2, done
    # Every failure is a decision's: no heading for others.
    assert "failures not explained by a decision" not in done.stdout, done
    assert "<h2>Failures of decisions read differently (3)</h2>" in page
    assert "Failures not explained" not in page


def test_a_partial_implementation_is_told_only_the_decision_it_reads_otherwise(
    tmp_path: Path,
) -> None:
    done, data, page = _run(tmp_path, "python:partial_context")
    real = "ctx.output.empty"
    assert data["footer"]["read_otherwise"] == [
        {"decision": real, "cases": list(DECISIONS[real].cases)}
    ]
    assert re.findall(r"^reads decision (\S+) differently", done.stdout, re.M) == [real], done
    # Cases of decisions it reads as this version does fail all the same, for other reasons.
    misled = [
        anchor
        for anchor, decision in DECISIONS.items()
        if anchor != real and decision.cases and set(decision.cases) <= _failing(data)
    ]
    assert len(misled) >= 5, misled  # each would have been "read differently" on failures alone
    others = len(_failing(data)) - len(DECISIONS[real].cases)
    blocks = done.stdout.split("\n\n")
    heading = blocks.index(f"failures not explained by a decision ({others} cases):")
    after = "\n\n".join(blocks[heading + 1 :])
    for name in DECISIONS[real].cases:
        assert f"FAIL {name} " not in after, done  # its case is above the heading, not below
    for anchor in misled:
        assert any(f"FAIL {name} " in after for name in DECISIONS[anchor].cases), anchor
    assert f"reads decision {real} differently" in page
    assert page.count("reads decision ") == 1
    assert "<h2>Failures of decisions read differently (1)</h2>" in page
    assert f"<h2>Failures not explained by a decision ({others})</h2>" in page


@pytest.mark.slow
def test_a_decision_with_a_passing_case_is_no_group(tmp_path: Path) -> None:
    # never_stub fails stubs across many rules and decisions: no decision has only failing cases.
    done = ctxconf("run", "--impl", "python:never_stub", "--json", tmp_path / "r.json",
                   cwd=FAUX, expect=1)  # fmt: skip
    assert "reads decision" not in done.stdout, done
    assert "failures not explained by a decision" not in done.stdout, done


def test_no_deduplication_at_all_is_told_of_no_decision_of_the_rule_it_breaks(
    tmp_path: Path,
) -> None:
    # Its answer on the cases of these two decisions is the other reading's by accident: before,
    # each was named as read differently. It shows no repeated listing as a stub, so it fails
    # every case of their parent rule, ctx.same.args, where the readings agree.
    done, data, page = _run(tmp_path, "python:no_dedup")
    accidental = ("ctx.same.args-any-order", "ctx.same.args-number-value")
    for anchor in accidental:
        assert set(DECISIONS[anchor].cases) <= _failing(data), anchor
        assert f"reads decision {anchor}" not in done.stdout, done
    assert data["footer"]["read_otherwise"] == []
    assert "reads decision " not in page
    for name in (name for anchor in accidental for name in DECISIONS[anchor].cases):
        assert f"FAIL {name} " in done.stdout, done
