"""The HTML report of a run, rendered only from its results file through a small view-model.

`build_view` turns the plain JSON document of a results file (`schemas/results.schema.json`) and
the spec's rules into a `ReportView` (`report_model`; each case's view is made by
`report_cases`); `report_page` renders that view into one self-contained page (inline CSS and JS,
nothing fetched). Texts an implementation sent
(outputs, stderr, messages, names) reach the page only escaped: through autoescaping, or through
`markupsafe.escape` where `report_diff` builds the marked-up lines.

The page's cost follows what it shows, not what an implementation sent: `report_diff` shows a
bounded head and tail of a long text, messages and stderr are clipped, and building the view is
linear in the cases. With many cases the page stays usable: cases with details start folded,
passing cases are one table, and past the first `EAGER_CASES` a case's details are a compact
body in a JSON data block that the page's script turns into HTML when the case is unfolded.

`render_report` is what `ctxconf report` calls: load (`report_inputs`), compare with an earlier
run (`report_compare`), render, write atomically. A results file that cannot be read, is not valid,
or was cut short raises the runner's `ResultsFileError` (code ``results-file``) naming the file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ctxconf.spectext.decisions import Decision
from ctxconf.spectext.rules import Rule
from ctxconf.userfiles.atomic import write_text_atomic

from .report_cases import COMPACT_BOUNDS, DiffBudget, Ids, RuleRefs, case_view, count, seconds, text
from .report_compare import (
    FAILING,
    Comparison,
    compare_results,
    comparison_lists,
    format_comparison,
)
from .report_inputs import (
    load_results_document,
    results_document,
    spec_decisions_for,
    spec_rules_for,
    unread_spec_texts,
)
from .report_model import (
    AreaTotal,
    CaseGroup,
    CaseView,
    ComparisonGroup,
    DecisionView,
    ReportView,
    RuleCaseLink,
    RuleSection,
    RuleTotal,
    VerdictCount,
)
from .report_page import render_html

# What other modules and the tests take from here, though it is made elsewhere.
__all__ = [
    "COMPACT_BOUNDS",
    "CaseView",
    "ReportOutcome",
    "build_view",
    "format_comparison",
    "load_results_document",
    "render_html",
    "render_report",
    "spec_decisions_for",
    "spec_rules_for",
    "write_html",
]

# How case verdicts are ordered in the totals (FAILING ones first).
VERDICT_ORDER = (
    "fail", "error", "timeout", "crash", "unexpected-pass", "equivalent-diff",
    "expected-failure", "skipped", "pass",
)  # fmt: skip

# The page stays usable however many cases fail: the first EAGER_CASES cases with details carry
# them in the page; the rest keep theirs in a JSON data block the script turns into HTML when
# the case is unfolded. With no more than OPEN_CASES such cases, they start unfolded.
EAGER_CASES = 200
OPEN_CASES = 20
MAX_RULE_CASE_LINKS = 50  # cases linked from one rule's section; the rest are counted
# The diffs' markup across the page: once it is spent, a diff shows only the texts' sizes and
# sha256, so that every case failing with a huge output still makes a page a browser opens.
PAGE_DIFF_BUDGET = 20_000_000  # 10,000 failing cases of the bundled suite take 6 MB


_GROUPS: tuple[tuple[str, str, str, bool], ...] = (
    (
        "read-otherwise",
        "Failures of decisions read differently",
        "Each of these cases answers as the reference does with its decision read the other way "
        "(see Decisions read differently).",
        True,
    ),
    ("failures", "Failures", "", True),
    (
        "equivalent",
        "Equivalent diffs",
        "The output differs from the expected text only in ways the runner judges equivalent. "
        "Such a case fails the run unless the run accepts equivalent diffs (then it passes, and is "
        "listed here all the same).",
        True,
    ),
    ("expected-failures", "Expected failures", "Listed as known failures for this run.", False),
    ("skipped", "Skipped", "", False),
    ("passed", "Passed", "", False),
)


# The title of the other failures when some are those of a decision read differently.
OTHER_FAILURES = "Failures not explained by a decision"


def _group_of(raw: Mapping[str, Any], read_otherwise: set[str]) -> str:
    verdict = text(raw.get("verdict"), "error")
    if verdict == "fail" and text(raw.get("name")) in read_otherwise:
        return "read-otherwise"
    equivalent_steps = any(
        isinstance(s, Mapping) and s.get("verdict") == "equivalent-diff"
        for s in raw.get("steps") or []
    )
    if verdict == "equivalent-diff" or (verdict == "pass" and equivalent_steps):
        return "equivalent"
    if verdict in FAILING:
        return "failures"
    if verdict == "expected-failure":
        return "expected-failures"
    if verdict == "skipped":
        return "skipped"
    return "passed"


def build_view(
    results_doc: Mapping[str, Any],
    rules: Mapping[str, Rule],
    decisions: Mapping[str, Decision] | None = None,
) -> ReportView:
    """The report's view-model, from the plain JSON document of a results file; `decisions`
    give the two readings of each decision the run's footer says was read the other way."""
    header = results_doc.get("header") or {}
    footer = results_doc.get("footer") or {}
    implementation = header.get("implementation") or {}
    ids = Ids(rules)  # case ids must not collide with the rules' ids
    options = header.get("options") or {}
    listed_in = text(options.get("expected_failures"))
    raw_cases = [c for c in results_doc.get("cases") or [] if isinstance(c, Mapping)]
    refs = RuleRefs(rules)
    found = _read_otherwise(footer, decisions or {})
    keys = [_group_of(raw, {name for _, names in found for name in names}) for raw in raw_cases]
    # Cases with details, in page order: the first EAGER_CASES carry them in the page.
    by_key: dict[str, list[int]] = {key: [] for key, *_ in _GROUPS}
    for index, key in enumerate(keys):
        by_key[key].append(index)
    detailed = [i for key, *_ in _GROUPS if key != "passed" for i in by_key[key]]
    eager = set(detailed[:EAGER_CASES])
    start_open = len(detailed) <= OPEN_CASES
    budget = DiffBudget(PAGE_DIFF_BUDGET)
    made: dict[int, CaseView] = {}
    for index in [*detailed, *by_key["passed"]]:  # in page order: the diff budget runs down so
        made[index] = case_view(
            raw_cases[index], refs, ids, listed_in, budget,
            compact=keys[index] != "passed" and index not in eager, start_open=start_open,
        )  # fmt: skip
    cases = [made[index] for index in range(len(raw_cases))]

    grouped: dict[str, list[CaseView]] = {key: [] for key, *_ in _GROUPS}
    for key, case in zip(keys, cases, strict=True):
        grouped[key].append(case)
    groups = [
        CaseGroup(
            key,
            OTHER_FAILURES if key == "failures" and grouped["read-otherwise"] else title,
            note,
            any(c.failing for c in grouped[key]),
            grouped[key],
        )
        for key, title, note, _ in _GROUPS
        if grouped[key]
    ]

    counts: dict[str, int] = {}
    for case in cases:
        counts[case.verdict] = counts.get(case.verdict, 0) + 1
    columns = [v for v in VERDICT_ORDER if counts.get(v)] + sorted(
        v for v in counts if v not in VERDICT_ORDER
    )
    areas: dict[str, list[CaseView]] = {}
    for case in cases:
        areas.setdefault(case.area, []).append(case)
    area_totals = [
        AreaTotal(
            area,
            [sum(1 for c in members if c.verdict == v) for v in columns],
            len(members),
            sum(1 for c in members if c.failing),
        )
        for area, members in areas.items()
    ]

    # By id, not by value: comparing whole case views would make this quadratic in the cases.
    by_rule_ids: dict[str, dict[str, CaseView]] = {anchor: {} for anchor in rules}
    for case in cases:
        for ref in case.rules:
            by_rule_ids.setdefault(ref.anchor, {}).setdefault(case.dom_id, case)
    by_rule = {anchor: list(members.values()) for anchor, members in by_rule_ids.items()}
    rule_totals = []
    for anchor, members in by_rule.items():
        rule = rules.get(anchor)
        passed = sum(1 for c in members if c.verdict == "pass")
        failing = sum(1 for c in members if c.failing)
        rule_totals.append(
            RuleTotal(
                anchor, rule.title if rule else "", rule is not None, len(members), passed,
                failing, len(members) - passed - failing,
            )
        )  # fmt: skip
    sections = [
        RuleSection(
            rule.anchor,
            rule.title,
            refs.get(rule.anchor).html,
            f"{rule.path.name}:{rule.line}" if rule.path else f"line {rule.line}",
            [
                RuleCaseLink(c.dom_id, c.key, c.verdict)
                for c in by_rule.get(rule.anchor, [])[:MAX_RULE_CASE_LINKS]
            ],
            max(0, len(by_rule.get(rule.anchor, [])) - MAX_RULE_CASE_LINKS),
        )
        for rule in rules.values()
    ]

    by_name = {case.name: case for case in cases if case.verdict == "fail"}
    read_otherwise = [
        DecisionView(
            decision.anchor,
            decision.question,
            decision.reading,
            decision.other,
            [
                RuleCaseLink(by_name[name].dom_id, by_name[name].key, by_name[name].verdict)
                for name in names[:MAX_RULE_CASE_LINKS]
                if name in by_name
            ],
        )
        for decision, names in found
    ]

    failing_count = sum(1 for c in cases if c.failing)
    interrupted = footer.get("interrupted") is True
    exit_code = footer.get("exit_code")
    passed = failing_count == 0 and exit_code in (0, None) and not interrupted
    # A skipped case was never judged (its area is not offered, or it was declined): it is not
    # one of the cases that could fail.
    judged = len(cases) - counts.get("skipped", 0)
    status = _status(failing_count, judged, counts.get("pass", 0), len(cases))
    name = text(implementation.get("name"), "implementation")
    return ReportView(
        title=f"ctxconf report: {name} {text(implementation.get('version'))}".strip(),
        impl_name=name,
        impl_version=text(implementation.get("version")),
        impl_language=text(implementation.get("language")),
        impl_spec=text(header.get("impl")),
        spec_version=text(header.get("spec_version")),
        spec_source=_spec_source(rules, text(header.get("spec_dir"))),
        ctxconf_version=text(header.get("ctxconf_version")),
        areas=[text(a) for a in header.get("areas") or []],
        started=text(header.get("started")),
        finished=text(footer.get("finished")),
        duration=seconds(footer.get("duration")),
        options=[(text(k), json.dumps(v, ensure_ascii=False)) for k, v in options.items()],
        passed=passed,
        status=status,
        totals=[VerdictCount(v, counts[v]) for v in columns],
        case_count=len(cases),
        verdict_columns=columns,
        area_totals=area_totals,
        rule_totals=rule_totals,
        groups=groups,
        rules=sections,
        decisions=read_otherwise,
        interrupted=(
            f"This run was interrupted: only the {count(len(cases), 'case')} it finished "
            f"{'is' if len(cases) == 1 else 'are'} here; the others were not run."
            if interrupted
            else ""
        ),
    )


def _read_otherwise(
    footer: Mapping[str, Any], decisions: Mapping[str, Decision]
) -> list[tuple[Decision, list[str]]]:
    """The decisions the run's footer names as read the other way, with their cases' names;
    one the spec's Decisions table does not have is left out (it has no two readings)."""
    found = []
    for item in footer.get("read_otherwise") or []:
        if isinstance(item, Mapping) and text(item.get("decision")) in decisions:
            names = [text(name) for name in item.get("cases") or []]
            found.append((decisions[text(item.get("decision"))], names))
    return found


def _status(failing: int, judged: int, passed: int, ran: int) -> str:
    if judged == 0 and ran:
        skipped = "its one case was" if ran == 1 else f"all {count(ran, 'case')} were"
        return f"No case was judged: {skipped} skipped, so the run fails."
    if judged == 0:
        return "No case was run."
    if failing:
        return f"{failing:,} of {count(judged, 'case')} failing"
    if passed == judged:
        return f"All {count(judged, 'case')} pass" if judged != 1 else "The 1 case passes"
    return f"No failing case among {count(judged, 'case')}"


def _spec_source(rules: Mapping[str, Rule], fallback: str) -> str:
    folders = sorted({str(rule.path.parent) for rule in rules.values() if rule.path})
    return ", ".join(folders) or fallback


def _with_comparison(view: ReportView, comparison: Comparison) -> ReportView:
    ids = {case.key: case.dom_id for group in view.groups for case in group.cases}
    groups = [
        ComparisonGroup(
            title, "cmp-" + title.replace(" ", "-"), [(c, ids.get(c.key, "")) for c in changes]
        )
        for title, changes in comparison_lists(comparison)
    ]
    return replace(view, comparison=groups, comparison_label=comparison.earlier)


# ---------------------------------------------------------------- files


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, text)


def write_html(
    results: object,
    path: Path,
    *,
    rules: Mapping[str, Rule] | None = None,
    comparison: Comparison | None = None,
    decisions: Mapping[str, Decision] | None = None,
) -> None:
    """Render results (a results document, or an object with to_json()/as_dict()) to `path`."""
    doc = results_document(results)
    view = build_view(
        doc,
        spec_rules_for(doc) if rules is None else rules,
        spec_decisions_for(doc) if decisions is None else decisions,
    )
    if comparison is not None:
        view = _with_comparison(view, comparison)
    _write_atomic(Path(path), render_html(view))


@dataclass(frozen=True)
class ReportOutcome:
    html_path: Path | None  # None: no page was asked for (a comparison alone)
    comparison: Comparison | None
    unread_texts: tuple[str, ...] = ()  # spec texts the page could not take its rules from

    @property
    def exit_code(self) -> int:
        return 1 if self.comparison is not None and self.comparison.newly_failing else 0


def render_report(
    results_path: Path, html_path: Path | None = None, earlier_path: Path | None = None
) -> ReportOutcome:
    """Re-render the report of a results file, or compare it with an earlier run.

    With an earlier run and no `html_path`, only the comparison is made: no page is written.
    Without an earlier run the page goes to `html_path`, by default beside the results file.
    """
    doc = load_results_document(results_path)
    comparison = None
    if earlier_path is not None:
        comparison = compare_results(load_results_document(earlier_path), doc, earlier_path.name)
        if html_path is None:
            return ReportOutcome(None, comparison)
    out = html_path or results_path.with_suffix(".html")
    write_html(doc, out, comparison=comparison)
    return ReportOutcome(out, comparison, tuple(unread_spec_texts(doc)))
