"""The report's cost is bounded by what it shows, and linear in the number of cases.

An implementation's output may be any size; the page shows a bounded head and tail of it, with
its size and sha256. Many failing cases keep the page usable: cases start folded, and the details
of those past the first ones wait in a JSON data block until they are unfolded.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from ctxconf.runner import report, report_diff
from ctxconf.runner.report import CaseView, build_view, write_html
from ctxconf.runner.report_diff import (
    MAX_LINE_CHARS,
    MAX_SHOWN_CHARS,
    MAX_SHOWN_LINES,
    diff_view,
    text_cells,
)
from ctxconf.spectext.rules import load_rules
from tests.runner.test_report import SCRIPT, SPEC, build_results, parse


def _html(view: Any) -> str:
    return "".join(str(row.expected.html) + str(row.actual.html) for row in view.rows)


def _numbered(count: int, start: int = 0) -> str:
    return "".join(f"line {n} of a long output\n" for n in range(start, start + count))


# -- one huge text ----------------------------------------------------------------------------


def test_a_long_output_shows_its_head_and_tail_with_its_size_and_digest() -> None:
    expected = _numbered(50)
    actual = _numbered(200_000) + SCRIPT
    view = diff_view(expected, actual)
    shown_numbers = [row.actual.number for row in view.rows if row.actual.number]
    assert len(shown_numbers) <= MAX_SHOWN_LINES
    assert shown_numbers[-1] == 200_001, "the tail keeps its line numbers"
    gap = f"not shown (lines {MAX_SHOWN_LINES // 2 + 1:,} to {200_001 - MAX_SHOWN_LINES // 2:,})"
    assert gap in _html(view)
    digest = hashlib.sha256(actual.encode()).hexdigest()
    (note,) = view.notes
    assert digest in note and "200,001 lines" in note and "results file" in note
    assert f"{len(actual.encode()):,} bytes" in note
    html = _html(view)
    assert "&lt;script&gt;" in html and "<script>" not in html
    assert len(html) < 4 * MAX_SHOWN_CHARS


def test_the_unchanged_head_and_tail_of_a_long_text_fold() -> None:
    expected = _numbered(10_000)
    view = diff_view(expected, expected + "one more line")
    assert len(view.rows) < 4 * report_diff.CONTEXT_LINES + 6
    assert view.summary.endswith("differ among those shown")


def test_a_long_expected_text_with_nothing_received_shows_its_head_and_tail() -> None:
    view = diff_view(_numbered(10_000), None)
    numbers = [row.expected.number for row in view.rows if row.expected.number]
    assert numbers[0] == 1 and numbers[-1] == 10_000 and len(numbers) <= MAX_SHOWN_LINES
    assert view.notes and "10,000 lines" in view.notes[0]
    assert "(nothing received)" in str(view.rows[0].actual.html)


def test_a_huge_single_line_shows_its_start_and_end() -> None:
    actual = "a" * 3_000_000 + "THE END"
    view = diff_view("a", actual)
    html = _html(view)
    assert "THE END" in html
    assert "characters not shown" in html
    assert len(html) < 4 * MAX_LINE_CHARS
    assert view.notes and "3,000,007 bytes" in view.notes[0]


def test_a_long_expected_text_is_bounded_too() -> None:
    cells = text_cells(_numbered(10_000))
    assert len(cells) <= MAX_SHOWN_LINES + 2
    assert "10,000 lines" in str(cells[0].html) and "not shown" in str(cells[1001].html)


def test_memory_is_bounded_by_what_is_shown() -> None:
    actual = _numbered(400_000) + "x" * 4_000_000  # 15.5 MB, one line of it 4 MB long
    expected = actual.replace("line 7 ", "line seven ")
    tracemalloc.start()
    try:
        diff_view(expected, actual)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # What is shown costs about 2.7 MB whatever the input; per character it would be gigabytes.
    assert peak < 20 * MAX_SHOWN_CHARS, f"{peak:,} bytes at the peak"


def test_unchanged_runs_fold_and_the_changed_line_keeps_its_context() -> None:
    expected = _numbered(500)
    view = diff_view(expected, expected.replace("line 250 of", "line 250 in"))
    assert view.summary == "1 line differs"
    two = diff_view(expected, expected.replace("line 2 of", "line 2 in").replace("line 9 of", "9"))
    assert two.summary == "2 lines differ"
    assert len(view.rows) < 20
    notes = [str(row.expected.html) for row in view.rows if row.expected.kind == "note"]
    assert any("unchanged" in note for note in notes)
    assert "line 249 of" in _html(view) and "line 251 of" in _html(view)


@pytest.mark.parametrize(
    ("expected", "actual", "badge"),
    [
        ("a\nb", "a\nc", False),  # neither side ends with a newline
        ("a\nb\n", "a\nc\n", False),
        ("a\nb", "a\nb\n", True),
        ("a\nb\n", "a\nb", True),
    ],
    ids=["both-without", "both-with", "expected-without", "actual-without"],
)
def test_no_final_newline_is_named_only_where_the_sides_differ(
    expected: str, actual: str, badge: bool
) -> None:
    assert ('class="noeol"' in _html(diff_view(expected, actual))) is badge


def test_a_shown_text_does_not_name_its_missing_final_newline() -> None:
    assert not any('class="noeol"' in str(cell.html) for cell in text_cells("a\nb"))


# -- many cases --------------------------------------------------------------------------------


def _many_failing(count: int) -> dict[str, Any]:
    doc = build_results()
    failing = doc["cases"][1]
    doc["cases"] = []
    for number in range(count):
        case = copy.deepcopy(failing)
        case["name"] = f"{failing['name']}-{number}"
        doc["cases"].append(case)
    doc["footer"]["totals"] = {**doc["footer"]["totals"], "fail": count, "pass": 0}
    return doc


@pytest.mark.slow
def test_building_the_view_never_compares_case_views(monkeypatch: pytest.MonkeyPatch) -> None:
    compared = 0
    original = CaseView.__eq__

    def counting(self: CaseView, other: object) -> bool:
        nonlocal compared
        compared += 1
        return original(self, other)

    monkeypatch.setattr(CaseView, "__eq__", counting)
    build_view(_many_failing(300), load_rules(SPEC))
    assert compared == 0, "comparing whole cases makes the view quadratic in the cases"


def test_cases_with_the_same_name_get_distinct_ids() -> None:
    doc = _many_failing(3)
    for case in doc["cases"]:
        case["name"] = "same"
    ids = [c.dom_id for g in build_view(doc, {}).groups for c in g.cases]
    assert ids == ["case-context-same", "case-context-same-2", "case-context-same-3"]


def test_past_the_first_cases_details_wait_in_data_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report, "EAGER_CASES", 3)
    monkeypatch.setattr(report, "OPEN_CASES", 2)
    path = tmp_path / "r.html"
    write_html(_many_failing(5), path)
    html = path.read_text(encoding="utf-8")
    page = parse(html)
    cases = [
        attrs
        for tag, attrs in page.tags
        if tag == "details" and "case" in (attrs.get("class") or "").split()
    ]
    assert len(cases) == 5
    assert not [attrs for attrs in cases if "open" in attrs], "more than OPEN_CASES: all folded"
    assert [("lazy" in (attrs.get("class") or "").split()) for attrs in cases] == [False] * 3 + [
        True
    ] * 2
    blocks = re.findall(r'<script type="application/json" class="body-data">(.*?)</script>', html)
    assert len(blocks) == 2
    for block in blocks:
        assert "<" not in block, "a data block holds no markup the HTML parser could see"
        body = json.loads(block)
        assert 'class="diff"' in body
        assert 'data-rule="ctx.stub.range"' in body, "rule texts are copied from the page"
        assert "Earlier steps (2, passed): <code>read</code>" in body
        assert '<details class="earlier">' not in body
        assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in body
    executable = [a for t, a in page.tags if t == "script" and a.get("type") != "application/json"]
    assert len(executable) == 1


def test_a_rule_links_a_bounded_number_of_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report, "MAX_RULE_CASE_LINKS", 4)
    view = build_view(_many_failing(10), load_rules(SPEC))
    section = next(s for s in view.rules if s.anchor == "ctx.stub.range")
    assert len(section.cases) == 4 and section.more_cases == 6


def test_passing_cases_are_one_table(tmp_path: Path) -> None:
    path = tmp_path / "r.html"
    write_html(build_results(), path)
    page = parse(path.read_text(encoding="utf-8"))
    rows = [a for t, a in page.tags if t == "tr" and "case" in (a.get("class") or "").split()]
    assert [r["id"] for r in rows] == [
        "case-context-reread-unchanged-is-stub",
        "case-context-only-listings-are-deduplicated",
    ]


def _huge_outputs(count: int, lines: int) -> dict[str, Any]:
    doc = _many_failing(count)
    for case in doc["cases"]:
        step = case["steps"][2]
        step["actual"] = _numbered(lines) + SCRIPT
    return doc


def _diffs(view: Any) -> list[Any]:
    return [s.diff for g in view.groups for c in g.cases for s in c.shown if s.diff]


def test_cases_past_the_first_show_less_of_each_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report, "EAGER_CASES", 1)
    view = build_view(_huge_outputs(2, 5000), {})
    eager, compact = (c for g in view.groups for c in g.cases)
    eager_rows = len(eager.shown[0].diff.rows)  # type: ignore[union-attr]
    compact_rows = len(compact.shown[0].diff.rows)  # type: ignore[union-attr]
    assert compact_rows <= report.COMPACT_BOUNDS.lines + 3 < eager_rows
    assert "its first 100 lines and last 100 lines" in compact.shown[0].diff.notes[-1]  # type: ignore[union-attr]


def test_once_the_page_budget_is_spent_diffs_give_sizes_and_digests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(report, "PAGE_DIFF_BUDGET", 20_000)
    doc = _huge_outputs(30, 2000)
    view = build_view(doc, {})
    diffs = _diffs(view)
    shown = [d for d in diffs if "not shown" not in d.summary]
    assert 0 < len(shown) < len(diffs), "the budget runs out part way"
    assert diffs[: len(shown)] == shown, "the cases first on the page keep their diffs"
    spent = sum(d.html_size for d in shown)
    assert spent - shown[-1].html_size < 20_000
    digest = hashlib.sha256(doc["cases"][-1]["steps"][2]["actual"].encode()).hexdigest()
    last = next(s.diff for s in view.groups[0].cases[-1].shown if s.index == 2)
    assert last is not None and "room for diffs is used up" in last.summary
    assert any(digest in note for note in last.notes)
