"""Anchors in the code: each rule names where the reference implements it, lint holds the two
to each other, and `ctxconf show ANCHOR` prints a rule with its places and its cases."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.specdata.reader import list_case_files
from ctxconf.spectext.rules import load_rules
from ctxconf.spectools.anchors import REFERENCE, implementations
from ctxconf.spectools.lint import check_anchors_in_code
from tests.cli import ctxconf

SPEC = bundled_spec_dir()
RULES = load_rules(SPEC)


def test_every_rule_is_named_in_the_reference_and_nothing_else_is() -> None:
    implemented = implementations()
    assert set(implemented) == set(RULES)
    for places in implemented.values():
        for place in places:
            line = place.path.read_text(encoding="utf-8").splitlines()[place.line - 1]
            assert line.strip().startswith("# rule: ")


@pytest.mark.slow
def test_show_prints_a_rule_its_places_and_its_cases() -> None:
    anchor = sorted(RULES)[0]
    done = ctxconf("show", anchor, cwd=SPEC.parent)
    rule = RULES[anchor]
    assert done.stdout.startswith(f"{anchor} {rule.title}")
    first_text_line = next(line for line in rule.text.splitlines() if line.strip())
    assert first_text_line in done.stdout
    for place in implementations()[anchor]:
        shown = f"{place.path.relative_to(REFERENCE.parent).as_posix()}:{place.line}"
        assert shown in done.stdout
    cases = [
        case["name"]
        for path in list_case_files(SPEC)
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]
        if anchor in case["rules"]
    ]
    assert cases and all(f": {name}\n" in done.stdout + "\n" for name in cases)


@pytest.mark.slow
def test_lint_fails_on_a_rule_implemented_nowhere(tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    shutil.copytree(SPEC, spec)
    md = spec / "context.md"
    md.write_text(
        md.read_text(encoding="utf-8") + "\n### `ctx.stub.nowhere` A rule nobody wrote\n\nText.\n",
        encoding="utf-8",
    )
    done = ctxconf("lint", "--spec", spec, expect=1)
    assert "rule ctx.stub.nowhere is implemented nowhere in the reference" in done.stdout


def test_a_comment_naming_no_rule_is_a_finding(tmp_path: Path) -> None:
    (tmp_path / "planted.py").write_text("# rule: ctx.no.such-rule\nx = 1\n", encoding="utf-8")
    anchors = {anchor: (Path("context.md"), rule.line) for anchor, rule in RULES.items()}
    implemented = {**implementations(), **implementations(tmp_path)}
    findings = list(check_anchors_in_code(anchors, implemented))
    assert [(Path(f.file).name, f.line) for f in findings] == [("planted.py", 1)]
    assert "ctx.no.such-rule" in findings[0].message


@pytest.mark.slow
@pytest.mark.parametrize("anchor", ["ctx.no.such-rule"])
def test_show_of_an_unknown_anchor_is_a_usage_error(anchor: str) -> None:
    done = ctxconf("show", anchor, cwd=SPEC.parent, expect=2)
    assert "no case or rule named" in done.stderr


@pytest.mark.slow
def test_show_suggests_the_rule_near_a_mistyped_anchor() -> None:
    done = ctxconf("show", "hist.rewind.droped", cwd=SPEC.parent, expect=2)
    assert "did you mean: hist.rewind.dropped" in done.stderr
