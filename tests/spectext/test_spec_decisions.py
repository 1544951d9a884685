"""The Decisions table and the rules marked `Decision:` are held together by `ctxconf lint`.

Each test edits a copy of the bundled spec and runs `ctxconf lint` on it as a user would.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.spectext.decisions import load_decisions, parse_decisions
from tests.cli import ctxconf

SPEC = bundled_spec_dir()


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def _row(anchor: str, spec: Path) -> str:
    text = (spec / "context.md").read_text(encoding="utf-8")
    return next(line for line in text.split("\n") if line.startswith(f"| [`{anchor}`]"))


@pytest.mark.slow
def test_the_bundled_spec_lints_clean() -> None:
    ctxconf("lint", "--spec", SPEC)


def test_every_decision_has_both_readings_and_its_cases() -> None:
    decisions = load_decisions(SPEC)
    assert "ctx.edit.no-change" in decisions
    for decision in decisions.values():
        assert decision.question and decision.reading and decision.other and decision.cases
        assert decision.reading != decision.other


@pytest.mark.slow
def test_a_marked_rule_without_a_row_fails(spec: Path) -> None:
    _edit(spec / "context.md", _row("ctx.compact.escape", spec) + "\n", "")
    done = ctxconf("lint", "--spec", spec, expect=1)
    line = next(
        number
        for number, text in enumerate((spec / "context.md").read_text().split("\n"), start=1)
        if text.startswith("### `ctx.compact.escape`")
    )
    assert f"context.md:{line}: rule ctx.compact.escape is marked 'Decision:'" in done.stdout


@pytest.mark.slow
def test_a_row_whose_rule_is_not_marked_fails(spec: Path) -> None:
    md = spec / "context.md"
    text = md.read_text(encoding="utf-8")
    mark = re.search(r"\nDecision: a `\|` in a row's path[^\n]*\n", text)
    assert mark is not None
    md.write_text(text.replace(mark.group(0), "\n"), encoding="utf-8")
    done = ctxconf("lint", "--spec", spec, expect=1)
    assert "rule ctx.compact.escape has a Decisions row but no line 'Decision: …'" in done.stdout


@pytest.mark.slow
def test_a_row_listing_other_cases_fails(spec: Path) -> None:
    row = _row("ctx.edit.no-change", spec)
    _edit(spec / "context.md", row, row.replace("`edit-without-change`, ", ""))
    done = ctxconf("lint", "--spec", spec, expect=1)
    assert "decision ctx.edit.no-change lists other cases than those tagged" in done.stdout


def test_a_malformed_row_is_placed() -> None:
    header = (
        "| decision | question | this version | other reading | cases |\n|---|---|---|---|---|\n"
    )
    text = header + "| x | y |\n"
    rows, bad = parse_decisions(text)
    assert rows == [] and bad == [3]


def test_an_escaped_bar_stays_in_its_cell() -> None:
    text = (
        "| decision | question | this version | other reading | cases |\n|---|---|---|---|---|\n"
        "| [`ctx.a.b`](#x) | A `\\|` | `\\\\|` | as is | `c` |\n"
    )
    (row,), _ = parse_decisions(text)
    assert (row.question, row.reading, row.cases) == ("A `|`", "`\\|`", ("c",))
