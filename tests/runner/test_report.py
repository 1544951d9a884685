"""The HTML report: self-contained, escaped, failures first, whitespace visible, rules linked.

The results documents are built here from the bundled cases, their expected texts computed by the
reference; each "implementation output" is an expected text changed on purpose.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from ctxconf import __version__
from ctxconf.reference import run_case
from ctxconf.runner.report import (
    build_view,
    load_results_document,
    render_report,
    spec_rules_for,
    write_html,
)
from ctxconf.runner.report_compare import compare_results
from ctxconf.runner.report_diff import diff_view, text_cells
from ctxconf.runner.report_markdown import markdown_html
from ctxconf.runner.results import schema_problems
from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.spectext.rules import Rule, load_rules
from tests.cli import ctxconf
from tests.interrupted_run import write_interrupted_run

SPEC = bundled_spec_dir()
CASES = {
    case["name"]: case
    for case in json.loads((SPEC / "conformance" / "context.json").read_text(encoding="utf-8"))[
        "cases"
    ]
}
SCRIPT = "<script>window.pwned = 1</script>"
IMG = '<img src=x onerror="window.pwned2 = 1">'
UNDECLARED = "ctx.not.declared"
VERDICTS = (
    "pass", "fail", "equivalent-diff", "error", "timeout", "crash", "skipped",
    "expected-failure", "unexpected-pass",
)  # fmt: skip


def _case(name: str, verdict: str, actuals: list[tuple[str | None, str]], **extra: Any) -> dict:
    """A case result: each step's (actual, step verdict), its expected text from the reference."""
    case = CASES[name]
    expected = run_case(case)
    steps = []
    for index, (step, text) in enumerate(zip(case["steps"], expected, strict=True)):
        actual, step_verdict = actuals[index] if index < len(actuals) else (None, "not-run")
        steps.append(
            {"index": index, "step": step, "expected": text, "actual": actual,
             "verdict": step_verdict}
        )  # fmt: skip
    return {
        "area": "context", "file": "context.json", "name": name,
        "description": case["description"], "rules": list(case["rules"]), "verdict": verdict,
        "message": extra.get("message", ""), "duration": extra.get("duration", 0.0123),
        "stderr": extra.get("stderr", ""), "steps": steps,
    }  # fmt: skip


def _same(name: str) -> list[tuple[str | None, str]]:
    return [(text, "pass") for text in run_case(CASES[name])]


def _broken(text: str) -> str:
    """An expected text as a careless implementation sends it: CRLF, trailing spaces, markup."""
    lines = text.split("\n")
    lines[0] += "  "
    del lines[3]
    return "\r\n".join(lines) + f"\n{SCRIPT} & {IMG}"


def build_results(spec_dir: Path = SPEC) -> dict[str, Any]:
    stub = run_case(CASES["stub-only-inside-an-earlier-read"])
    edit = run_case(CASES["read-after-own-edit-is-full"])
    cap = run_case(CASES["cap-keeps-head-and-tail"])
    listing = run_case(CASES["same-listing-is-stub"])
    edit_lines = edit[1].split("\n")
    equivalent = "\n".join([*edit_lines[:-2], edit_lines[-1], edit_lines[-2]])
    cases = [
        _case("reread-unchanged-is-stub", "pass", _same("reread-unchanged-is-stub")),
        _case(
            "stub-only-inside-an-earlier-read",
            "fail",
            [
                (stub[0], "pass"),
                (stub[1], "pass"),
                (_broken(stub[2]), "fail"),
                (stub[3] + "\n", "fail"),
            ],
            duration=0.25,
        ),
        _case(
            "read-after-own-edit-is-full",
            "equivalent-diff",
            [
                (edit[0], "pass"),
                (equivalent, "equivalent-diff"),
                (edit[2], "pass"),
                (edit[3], "pass"),
            ],
        ),
        _case(
            "cap-keeps-head-and-tail",
            "error",
            [(cap[0], "pass")],
            message="the answer to step 1 is not JSON: <oops> & more",
            stderr=f"Traceback (most recent call last):\n  boom {SCRIPT}\nValueError: <bad> & co\n",
        ),
        _case(
            "same-listing-is-stub",
            "timeout",
            [(listing[0], "pass")],
            message="no answer within 10.0 s",
        ),
        _case(
            "created-file-and-empty-file",
            "skipped",
            [],
            message="the implementation does not offer the op write",
        ),
        _case("only-listings-are-deduplicated", "pass", _same("only-listings-are-deduplicated")),
    ]
    cases[0]["rules"].append(UNDECLARED)
    totals = dict.fromkeys(VERDICTS, 0)
    for case in cases:
        totals[case["verdict"]] += 1
    return {
        "format": "ctxconf-results",
        "format_version": 1,
        "header": {
            "ctxconf_version": __version__,
            "spec_version": "3.1.0",
            "spec_dir": str(spec_dir),
            "impl": "cmd:./impl --stdio <&>",
            "implementation": {
                "name": 'fake <impl> & "co"',
                "version": "0.0.1",
                "language": "python",
            },
            "areas": ["context"],
            "started": "2026-11-30T06:00:00+00:00",
            "options": {
                "jobs": 1,
                "timeout": 10.0,
                "k": None,
                "accept_equivalent_diffs": False,
                "expected_failures": None,
            },
        },
        "cases": cases,
        "footer": {
            "finished": "2026-11-30T06:00:02+00:00",
            "duration": 1.5,
            "totals": totals,
            "exit_code": 1,
        },
    }


class _Page(HTMLParser):
    """The ids, links, tags and attributes of a page, as a browser's parser sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.hrefs: list[str] = []
        self.srcs: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if found.get("id"):
            self.ids.append(str(found["id"]))
        if found.get("href") is not None:
            self.hrefs.append(str(found["href"]))
        if found.get("src") is not None:
            self.srcs.append(str(found["src"]))


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("report") / "report.html"
    write_html(build_results(), path)
    return path.read_text(encoding="utf-8")


def test_results_fixture_is_a_valid_results_document() -> None:
    assert schema_problems(build_results()) == []


def test_bundled_spec_declares_the_fixture_rules() -> None:
    rules = load_rules(SPEC)
    named = {anchor for case in build_results()["cases"] for anchor in case["rules"]}
    assert named - set(rules) == {UNDECLARED}


def test_page_is_self_contained(report: str) -> None:
    page = parse(report)
    assert page.srcs == []
    assert not [h for h in page.hrefs if not h.startswith("#")]
    assert not [t for t, attrs in page.tags if t in ("link", "iframe", "object", "embed", "img")]
    assert not re.search(r"https?://", report)
    assert "@import" not in report and "url(" not in report
    styles = [t for t, _ in page.tags if t == "style"]
    assert len(styles) == 1


def test_only_the_page_script_is_a_script(report: str) -> None:
    page = parse(report)
    assert [t for t, _ in page.tags if t == "script"] == ["script"]
    assert SCRIPT not in report and "<img" not in report
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in report
    assert "onerror=&#34;window.pwned2 = 1&#34;" in report


@pytest.mark.parametrize(
    "escaped",
    [
        "fake &lt;impl&gt; &amp; &#34;co&#34;",  # the implementation's name
        "cmd:./impl --stdio &lt;&amp;&gt;",  # the impl spec as given
        "not JSON: &lt;oops&gt; &amp; more",  # a message
        "ValueError: &lt;bad&gt; &amp; co",  # stderr
    ],
)
def test_what_an_implementation_sent_is_escaped(report: str, escaped: str) -> None:
    assert escaped in report


def test_csp_admits_only_the_inline_style_and_script(report: str) -> None:
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', report)
    assert csp is not None
    assert "default-src 'none'" in csp.group(1)
    assert "unsafe-inline" not in csp.group(1)


def test_failing_cases_come_first_and_equivalent_diffs_apart(report: str) -> None:
    ids = [i for i in parse(report).ids if i.startswith("case-")]
    order = [i.removeprefix("case-context-") for i in ids]
    failing = [
        "stub-only-inside-an-earlier-read",
        "cap-keeps-head-and-tail",
        "same-listing-is-stub",
    ]
    assert order[:3] == failing
    assert order[3] == "read-after-own-edit-is-full"
    assert order.index("reread-unchanged-is-stub") > order.index("created-file-and-empty-file")
    sections = [
        i for i in parse(report).ids if i in ("failures", "equivalent", "skipped", "passed")
    ]
    assert sections == ["failures", "equivalent", "skipped", "passed"]
    failures = report[report.index('id="failures"') : report.index('id="equivalent"')]
    assert "read-after-own-edit-is-full" not in failures


def test_rule_anchors_link_to_sections_in_the_page(report: str) -> None:
    page = parse(report)
    rule_links = {h[1:] for h in page.hrefs if h.startswith("#ctx.")}
    named = {a for c in build_results()["cases"] for a in c["rules"]} - {UNDECLARED}
    assert named <= rule_links
    assert rule_links <= set(page.ids)
    assert f'href="#{UNDECLARED}"' not in report and UNDECLARED in report
    assert len(page.ids) == len(set(page.ids))
    for href in page.hrefs:
        assert href[1:] in page.ids, href


def test_every_spec_rule_is_embedded(report: str) -> None:
    ids = set(parse(report).ids)
    rules = load_rules(SPEC)
    assert set(rules) <= ids
    for rule in rules.values():
        assert f"<code>{rule.anchor}</code> {rule.title}" in report.replace("&#39;", "'")


@pytest.mark.parametrize(
    "marker",
    [
        'class="cr trail"',  # a carriage return (at the end of a line)
        'class="ws trail"',  # a space at the end of a line
        'class="eol"',  # the end of a line
        'class="noeol"',  # a missing final newline
        'class="chg"',  # changed characters within a line
        'class="c exp del"',  # a changed line, expected side
        'class="c act ins"',  # a changed line, actual side
        'class="c act filler"',  # a line only the expected text has
    ],
)
def test_differences_and_whitespace_are_marked(report: str, marker: str) -> None:
    assert marker in report


def test_earlier_steps_stderr_and_timings_are_shown(report: str) -> None:
    assert '<details class="earlier"><summary>Earlier steps (2, passed)</summary>' in report
    assert '<details class="stderr"><summary>stderr (3 lines)</summary>' in report
    assert "250 ms" in report and "took 1.50 s" in report
    assert "no answer within 10.0 s" in report
    assert "the implementation does not offer the op write" in report


def test_header_shows_the_implementation_and_spec(report: str) -> None:
    assert "0.0.1 (python)" in report
    assert "3.1.0" in report
    # The equivalent diff fails the run too; the skipped case was never judged, so not counted.
    assert "4 of 6 cases failing" in report


def test_view_groups_and_totals() -> None:
    view = build_view(build_results(), load_rules(SPEC))
    assert [g.dom_id for g in view.groups] == ["failures", "equivalent", "skipped", "passed"]
    assert [(a.area, a.total, a.failing) for a in view.area_totals] == [("context", 7, 4)]
    by_rule = {r.anchor: r for r in view.rule_totals}
    assert by_rule["ctx.stub.range"].failing == 1
    assert by_rule[UNDECLARED].known is False and by_rule[UNDECLARED].passed == 1
    assert not view.passed


def test_accepted_equivalent_diff_is_listed_with_equivalents() -> None:
    doc = build_results()
    doc["cases"][2]["verdict"] = "pass"
    view = build_view(doc, {})
    equivalent = next(g for g in view.groups if g.dom_id == "equivalent")
    assert [c.name for c in equivalent.cases] == ["read-after-own-edit-is-full"]
    assert not equivalent.failing


class _AsDict:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc

    def as_dict(self) -> dict[str, Any]:
        return self.doc


class _ToJsonText:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc

    def to_json(self) -> str:
        return json.dumps(self.doc)


@pytest.mark.parametrize(
    "wrap",
    [lambda d: d, _AsDict, _ToJsonText, lambda d: load_results_document_from(d)],
    ids=["dict", "as_dict", "to_json-text", "Results"],
)
def test_write_html_accepts_a_document_or_an_object(
    tmp_path: Path, wrap: Callable[[dict[str, Any]], object]
) -> None:
    path = tmp_path / "out" / "r.html"
    write_html(wrap(build_results()), path)
    assert "stub-only-inside-an-earlier-read" in path.read_text(encoding="utf-8")


def load_results_document_from(doc: dict[str, Any]) -> object:
    from ctxconf.runner.results import results_from_json

    return results_from_json(doc)


def test_write_html_replaces_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "r.html"
    path.write_text("old", encoding="utf-8")
    write_html(build_results(), path)
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]
    assert path.stat().st_mode & 0o044 == 0o044, "readable by others, like any file written"


def test_spec_comes_from_the_results_spec_dir(tmp_path: Path) -> None:
    (tmp_path / "context.md").write_text(
        "# Fixture\n\n### `ctx.stub.range` Fixture title\n\nFixture text.\n", encoding="utf-8"
    )
    assert list(spec_rules_for(build_results(tmp_path))) == ["ctx.stub.range"]
    assert set(spec_rules_for(build_results(tmp_path / "missing"))) == set(load_rules(SPEC))


@dataclass(frozen=True)
class TextCase:
    name: str
    expected: str
    actual: str | None
    must_contain: tuple[str, ...]


TEXT_CASES = [
    TextCase("trailing-space", "a\nb", "a \nb", ('class="ws trail"',)),
    TextCase("tab", "a\tb", "a b", ('class="tab"',)),
    TextCase("crlf", "a\nb", "a\r\nb", ('class="cr trail"', 'class="chg"')),
    TextCase("inner-cr", "ab", "a\rb", ('class="cr"',)),
    TextCase("final-newline", "a", "a\n", ('class="noeol"', 'class="eol"')),
    TextCase("control", "a", "a\x1b", ("\\x1b",)),
    TextCase("no-break-space", "a b", "a\u00a0b", ("\\xa0", "no-break space")),
    TextCase("kelvin-sign", "OK", "O\u212a", ("\\u212a", "kelvin sign")),
    TextCase("zero-width-space", "ab", "a\u200bb", ("\\u200b", "zero width space")),
    TextCase("extra-line", "a", "a\nb", ('<span class="chg">b',)),
    TextCase("nothing-received", "a", None, ("(nothing received)",)),
    TextCase("markup", "<b>", "<i>&", ("&lt;", "&amp;")),
    TextCase("whole-words", "a Unchanged b", "a Same b", ('<span class="chg">Same</span>',)),
]


@pytest.mark.parametrize("case", TEXT_CASES, ids=[c.name for c in TEXT_CASES])
def test_diff_view_marks(case: TextCase) -> None:
    view = diff_view(case.expected, case.actual)
    html = "".join(str(row.expected.html) + str(row.actual.html) for row in view.rows)
    for needle in case.must_contain:
        assert needle in html
    assert "<b>" not in html and "<i>" not in html
    sides = {row.actual.kind for row in view.rows} | {row.expected.kind for row in view.rows}
    assert sides & {"del", "ins"}, "a difference must mark a line"


def test_a_step_answered_with_an_error_says_so_not_that_nothing_came(tmp_path: Path) -> None:
    doc = _with_verdicts({"stub-only-inside-an-earlier-read": "fail"})
    step = doc["cases"][0]["steps"][2]
    step.update(actual=None, verdict="fail", message="the implementation answered: not yet")
    path = tmp_path / "r.html"
    write_html(doc, path)
    page = path.read_text(encoding="utf-8")
    assert "(an error instead of a text)" in page
    assert "an error answered, no text for this step" in page
    assert "the implementation answered: not yet" in page
    assert "nothing received" not in page and "no output received" not in page


def test_identical_texts_mark_nothing() -> None:
    view = diff_view("x\ny", "x\ny")
    assert view.summary == "identical texts"
    assert {row.expected.kind for row in view.rows} == {"same"}
    assert all("chg" not in str(row.actual.html) for row in view.rows)


def test_empty_text_is_named() -> None:
    assert "(empty text)" in str(text_cells("")[0].html)


@pytest.mark.parametrize(
    ("source", "html"),
    [
        ("a `ctx.stub.range` b", '<a class="rule" href="#ctx.stub.range"><code>ctx.stub.range'),
        ("**strong** <tag>", "<strong>strong</strong> &lt;tag&gt;"),
        ("[out](https://example.org/x)", "out (https://example.org/x)"),
        ("[in](#ctx.stub.range)", '<a class="rule" href="#ctx.stub.range">in</a>'),
        (
            "[`ctx.stub.range`](#ctxstubrange-lines-outside)",
            '<a class="rule" href="#ctx.stub.range"><code>ctx.stub.range</code></a>',
        ),
        ("[elsewhere](#some-heading)", "elsewhere"),
        ("```\n# not a heading <x>\n```", "<pre><code># not a heading &lt;x&gt;</code></pre>"),
        ("- one\n- two", "<ul><li>one</li><li>two</li></ul>"),
    ],
    ids=[
        "anchor-code",
        "strong-escaped",
        "outside-link",
        "rule-link",
        "slug-link",
        "unknown-link",
        "fence",
        "list",
    ],
)
def test_rule_text_markdown(source: str, html: str) -> None:
    assert html in str(markdown_html(source, {"ctx.stub.range"}))


# -- comparing runs, and the command ------------------------------------------------------


def _with_verdicts(verdicts: dict[str, str]) -> dict[str, Any]:
    doc = build_results()
    doc["cases"] = [copy.deepcopy(c) for c in doc["cases"] if c["name"] in verdicts]
    for case in doc["cases"]:
        case["verdict"] = verdicts[case["name"]]
    totals = dict.fromkeys(VERDICTS, 0)
    for case in doc["cases"]:
        totals[case["verdict"]] += 1
    doc["footer"]["totals"] = totals
    return doc


EARLIER = {
    "reread-unchanged-is-stub": "pass",
    "stub-only-inside-an-earlier-read": "fail",
    "read-after-own-edit-is-full": "fail",
    "cap-keeps-head-and-tail": "pass",
    "created-file-and-empty-file": "skipped",
}
LATER = {
    "reread-unchanged-is-stub": "pass",
    "stub-only-inside-an-earlier-read": "fail",
    "read-after-own-edit-is-full": "pass",
    "cap-keeps-head-and-tail": "crash",
    "same-listing-is-stub": "timeout",
}


def test_compare_results_sorts_every_case() -> None:
    result = compare_results(_with_verdicts(EARLIER), _with_verdicts(LATER), "earlier.json")
    assert [c.name for c in result.newly_failing] == ["cap-keeps-head-and-tail"]
    assert [c.name for c in result.newly_passing] == ["read-after-own-edit-is-full"]
    assert [c.name for c in result.still_failing] == ["stub-only-inside-an-earlier-read"]
    assert [(c.name, c.before, c.after) for c in result.added] == [
        ("same-listing-is-stub", None, "timeout")
    ]
    assert [(c.name, c.after) for c in result.removed] == [("created-file-and-empty-file", None)]


def test_compare_with_expected_failures_follows_what_the_implementation_did() -> None:
    # Both runs listed three cases as expected failures; in the later one two pass.
    earlier = {
        "reread-unchanged-is-stub": "expected-failure",
        "stub-only-inside-an-earlier-read": "expected-failure",
        "read-after-own-edit-is-full": "expected-failure",
        "cap-keeps-head-and-tail": "pass",
    }
    later = {
        **earlier,
        "reread-unchanged-is-stub": "unexpected-pass",
        "stub-only-inside-an-earlier-read": "unexpected-pass",
        "cap-keeps-head-and-tail": "expected-failure",
    }
    result = compare_results(_with_verdicts(earlier), _with_verdicts(later))
    assert sorted(c.name for c in result.newly_passing) == [
        "reread-unchanged-is-stub", "stub-only-inside-an-earlier-read",
    ]  # fmt: skip
    assert [c.name for c in result.still_failing] == ["read-after-own-edit-is-full"]
    # A case that passed and now fails is newly failing, though it is listed as expected.
    assert [c.name for c in result.newly_failing] == ["cap-keeps-head-and-tail"]
    # And back: the unexpected passes fail again.
    back = compare_results(_with_verdicts(later), _with_verdicts(earlier))
    assert sorted(c.name for c in back.newly_failing) == [
        "reread-unchanged-is-stub", "stub-only-inside-an-earlier-read",
    ]  # fmt: skip
    assert [c.name for c in back.newly_passing] == ["cap-keeps-head-and-tail"]


def _write(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.slow
def test_report_command_rerenders_to_the_default_path(tmp_path: Path) -> None:
    results = _write(tmp_path / "run.json", build_results())
    done = ctxconf("report", results)
    assert (tmp_path / "run.html").is_file()
    assert str(tmp_path / "run.html") in done.stdout


@pytest.mark.slow
def test_report_command_compare_exits_1_on_newly_failing(tmp_path: Path) -> None:
    earlier = _write(tmp_path / "earlier.json", _with_verdicts(EARLIER))
    later = _write(tmp_path / "later.json", _with_verdicts(LATER))
    out = tmp_path / "page" / "cmp.html"
    done = ctxconf("report", later, "--html", out, "--compare", earlier, expect=1)
    assert "newly failing: 1" in done.stdout
    assert "context/cap-keeps-head-and-tail  (pass -> crash)" in done.stdout
    assert "removed: 1" in done.stdout and "added: 1" in done.stdout
    html = out.read_text(encoding="utf-8")
    assert "Changes since earlier.json" in html
    assert 'id="cmp-newly-failing"' in html


def test_report_command_compare_exits_0_without_newly_failing(tmp_path: Path) -> None:
    fixed = {**EARLIER, "stub-only-inside-an-earlier-read": "pass", "same-listing-is-stub": "fail"}
    earlier = _write(tmp_path / "earlier.json", _with_verdicts(EARLIER))
    later = _write(tmp_path / "later.json", _with_verdicts(fixed))
    done = ctxconf("report", later, "--compare", earlier)
    assert "newly failing: 0" in done.stdout
    assert "newly passing: 1" in done.stdout
    assert "added: 1\n    context/same-listing-is-stub  (- -> fail)" in done.stdout


def _truncated(path: Path) -> Path:
    text = json.dumps(build_results(), indent=1)
    path.write_text(text[: text.index('"footer"')], encoding="utf-8")
    return path


def _no_footer(path: Path) -> Path:
    doc = build_results()
    del doc["footer"]
    return _write(path, doc)


def _invalid(path: Path) -> Path:
    doc = build_results()
    doc["cases"][0]["verdict"] = "great"
    return _write(path, doc)


def _not_json(path: Path) -> Path:
    path.write_bytes(b"\xff\xfe not json")
    return path


def _missing(path: Path) -> Path:
    return path


BAD_FILES: dict[str, Callable[[Path], Path]] = {
    "truncated": _truncated,
    "no-footer": _no_footer,
    "invalid": _invalid,
    "not-json": _not_json,
    "missing": _missing,
}


@pytest.mark.slow
@pytest.mark.parametrize("make", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_report_command_refuses_a_bad_results_file(
    tmp_path: Path, make: Callable[[Path], Path]
) -> None:
    bad = make(tmp_path / "bad.json")
    done = ctxconf("report", bad, expect=2)
    assert str(bad) in done.stderr
    assert not (tmp_path / "bad.html").exists()


@pytest.mark.slow
def test_report_command_refuses_a_bad_earlier_file(tmp_path: Path) -> None:
    results = _write(tmp_path / "run.json", build_results())
    bad = _truncated(tmp_path / "earlier.json")
    done = ctxconf("report", results, "--compare", bad, expect=2)
    assert str(bad) in done.stderr


def test_render_report_library_function(tmp_path: Path) -> None:
    results = _write(tmp_path / "run.json", build_results())
    outcome = render_report(results, tmp_path / "x.html")
    assert outcome.exit_code == 0 and outcome.comparison is None
    assert load_results_document(results)["footer"]["exit_code"] == 1
    assert (tmp_path / "x.html").read_text(encoding="utf-8").count('class="case ') == 7


def test_rules_argument_overrides_the_spec(tmp_path: Path) -> None:
    rule = Rule("ctx.stub.range", "Given title", "Given text.", 1)
    write_html(build_results(), tmp_path / "r.html", rules={"ctx.stub.range": rule})
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Given title" in html and 'id="ctx.stub.range"' in html
    assert 'id="ctx.stub.unchanged"' not in html


# -- what a case card says ---------------------------------------------------------------------


def _settled(verdict: str, entry: str, message: str) -> dict[str, Any]:
    doc = build_results()
    case = doc["cases"][1]
    case["verdict"], case["message"] = verdict, message
    case["expected_failure"] = {"entry": entry, "reason": "ids <not> passed yet", "strict": True}
    doc["header"]["options"]["expected_failures"] = "ci/xfail.yaml"
    return doc


def test_unexpected_pass_says_which_entry_to_remove_from_which_file(tmp_path: Path) -> None:
    path = tmp_path / "r.html"
    write_html(_settled("unexpected-pass", "ctx.stub.range", "listed, but it passed"), path)
    html = path.read_text(encoding="utf-8")
    assert "this case now passes: remove its entry `ctx.stub.range` from ci/xfail.yaml" in html
    assert "ids &lt;not&gt; passed yet" in html


def test_expected_failure_shows_its_own_failure_message_beside_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "r.html"
    message = "step 2: the implementation answered: <no such id>"
    write_html(_settled("expected-failure", "stub-only-inside-an-earlier-read", message), path)
    html = path.read_text(encoding="utf-8")
    assert "under <code>stub-only-inside-an-earlier-read</code>: ids &lt;not&gt; passed yet" in html
    assert "step 2: the implementation answered: &lt;no such id&gt;" in html


def test_an_interrupted_run_says_so_at_the_top(tmp_path: Path) -> None:
    doc = build_results()
    doc["footer"].update(interrupted=True, exit_code=130)
    path = tmp_path / "r.html"
    write_html(doc, path)
    html = path.read_text(encoding="utf-8")
    banner = "This run was interrupted: only the 7 cases it finished are here"
    assert banner in html
    assert html.index(banner) < html.index('class="status bad"')
    write_html(build_results(), path)
    assert "This run was interrupted" not in path.read_text(encoding="utf-8")


def test_cases_never_sent_are_not_counted_in_the_status() -> None:
    doc = _with_verdicts({"reread-unchanged-is-stub": "pass", "cap-keeps-head-and-tail": "fail"})
    assert build_view(doc, {}).status == "1 of 2 cases failing"
    doc["cases"].append(copy.deepcopy(doc["cases"][0]) | {"name": "x", "verdict": "skipped"})
    doc["cases"][0]["verdict"] = "skipped"  # its area is not offered: never sent
    assert build_view(doc, {}).status == "1 of 1 case failing"


def test_a_run_whose_every_case_was_skipped_is_no_pass() -> None:
    skipped = {"reread-unchanged-is-stub": "skipped", "cap-keeps-head-and-tail": "skipped"}
    doc = _with_verdicts(skipped)
    doc["footer"]["exit_code"] = 1
    view = build_view(doc, {})
    assert view.status == "No case was judged: all 2 cases were skipped, so the run fails."
    assert not view.passed


@pytest.mark.slow
def test_report_command_compare_alone_writes_no_page(tmp_path: Path) -> None:
    earlier = _write(tmp_path / "earlier.json", _with_verdicts(EARLIER))
    later = _write(tmp_path / "later.json", _with_verdicts(LATER))
    done = ctxconf("report", later, "--compare", earlier, expect=1)
    assert "newly failing: 1" in done.stdout and "wrote" not in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["earlier.json", "later.json"]


@pytest.mark.slow
def test_the_report_of_a_run_cut_short_by_a_signal_says_so(tmp_path: Path) -> None:
    results = tmp_path / "r.json"
    write_interrupted_run(results, interrupted_at_seq=3)
    ctxconf("report", results, "--html", tmp_path / "r.html", expect=None)
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    finished = len(json.loads(results.read_text(encoding="utf-8"))["cases"])
    assert f"This run was interrupted: only the {finished} cases it finished are here" in html
    assert 'class="status bad"' in html
