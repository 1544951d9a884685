"""An implementation that reads two decisions differently gets two groups, on the console and in
the report, each with the two readings side by side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.spectext.decisions import load_decisions
from tests.cli import ctxconf
from tests.paths import FAUX

DECISIONS = load_decisions(bundled_spec_dir())
OTHER_WAY = ("ctx.edit.no-change", "ctx.compact.escape")


@pytest.mark.slow
def test_two_decisions_read_otherwise_make_two_groups(tmp_path: Path) -> None:
    results, html = tmp_path / "r.json", tmp_path / "r.html"
    done = ctxconf(
        "run", "--impl", "python:two_decisions_read_otherwise", "--json", results,
        "--html", html, cwd=FAUX, expect=1,
    )  # fmt: skip
    failing = {
        case["name"]
        for case in json.loads(results.read_text(encoding="utf-8"))["cases"]
        if case["verdict"] != "pass"
    }
    assert failing == {name for anchor in OTHER_WAY for name in DECISIONS[anchor].cases}, done
    page = html.read_text(encoding="utf-8")
    for anchor in OTHER_WAY:
        decision = DECISIONS[anchor]
        assert f"reads decision {anchor} differently" in done.stdout, done
        assert f"this version:  {decision.reading}" in done.stdout, done
        assert f"other reading: {decision.other}" in done.stdout, done
        assert f"reads decision {anchor} differently" in page
    assert done.stdout.count("reads decision ") == 2, done


@pytest.mark.slow
def test_a_decision_with_a_passing_case_is_no_group(tmp_path: Path) -> None:
    # never_stub fails stubs across many rules and decisions: no decision has only failing cases.
    done = ctxconf("run", "--impl", "python:never_stub", "--json", tmp_path / "r.json",
                   cwd=FAUX, expect=1)  # fmt: skip
    assert "reads decision" not in done.stdout, done
