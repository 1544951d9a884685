"""The HTML report of a run, rendered only from its results file through a small view-model.

`build_view` turns the plain JSON document of a results file (`schemas/results.schema.json`) and
the spec's rules into a `ReportView`; the Jinja2 template `templates/report.html.j2` renders that
view into one self-contained page (inline CSS and JS, nothing fetched). Texts an implementation sent
(outputs, stderr, messages, names) reach the page only escaped: through autoescaping, or through
`markupsafe.escape` where `report_diff` builds the marked-up lines.

The page's cost follows what it shows, not what an implementation sent: `report_diff` shows a
bounded head and tail of a long text, messages and stderr are clipped, and building the view is
linear in the cases. With many cases the page stays usable: cases with details start folded,
passing cases are one table, and past the first `EAGER_CASES` a case's details are a compact
body in a JSON data block that the page's script turns into HTML when the case is unfolded.

`render_report` is what `ctxconf report` calls: load, compare with an earlier run
(`report_compare`), render, write atomically. A results file that cannot be read, is not valid,
or was cut short raises the runner's `ResultsFileError` (code ``results-file``) naming the file.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from ctxconf.paths import bundled_spec_dir
from ctxconf.spec_decisions import Decision, load_decisions
from ctxconf.spec_rules import Rule, load_rules

from .decision_groups import decision_groups
from .report_compare import FAILING, CaseChange, Comparison, compare_results
from .report_diff import FULL, NOTHING, Bounds, Cell, DiffView, diff_view, text_cells
from .report_markdown import markdown_html
from .results import load_results

TEMPLATES = Path(__file__).resolve().parent / "templates"

# How case verdicts are ordered in the totals (FAILING ones first).
VERDICT_ORDER = (
    "fail", "error", "timeout", "crash", "unexpected-pass", "equivalent-diff",
    "expected-failure", "skipped", "pass",
)  # fmt: skip
DIFF_STEP_VERDICTS = frozenset({"fail", "equivalent-diff"})

# The page stays usable however many cases fail: the first EAGER_CASES cases with details carry
# them in the page; the rest keep theirs in a JSON data block the script turns into HTML when
# the case is unfolded. With no more than OPEN_CASES such cases, they start unfolded.
EAGER_CASES = 200
OPEN_CASES = 20
MAX_RULE_CASE_LINKS = 50  # cases linked from one rule's section; the rest are counted
MAX_MESSAGE_CHARS = 20_000  # of a case's or a step's message, from its start
MAX_STDERR_CHARS = 64 * 1024  # of a case's stderr, from its end
# A compact case (past EAGER_CASES) shows less of each text an implementation sent.
COMPACT_BOUNDS = Bounds(200, 20_000)
COMPACT_MESSAGE_CHARS = 2000
COMPACT_STDERR_CHARS = 4096
# The diffs' markup across the page: once it is spent, a diff shows only the texts' sizes and
# sha256, so that every case failing with a huge output still makes a page a browser opens.
PAGE_DIFF_BUDGET = 20_000_000  # 10,000 failing cases of the bundled suite take 6 MB
GIST_CHARS = 160  # the one line a folded case shows


# ---------------------------------------------------------------- view-model


@dataclass(frozen=True)
class StepField:
    name: str
    inline: str  # short values, shown on one line
    lines: list[Cell]  # long or multi-line strings, shown with their whitespace visible
    size: str = ""  # what a compact case shows of a long value instead: its size


@dataclass(frozen=True)
class StepView:
    index: int
    op: str
    verdict: str
    fields: list[StepField]
    expected: list[Cell]
    diff: DiffView | None  # for a failing or equivalent step: expected beside actual
    message: str  # what the implementation answered for this step alone


@dataclass(frozen=True)
class RuleRef:
    anchor: str
    title: str
    known: bool  # declared in the spec text, so the page has a section with that id
    html: Markup


@dataclass(frozen=True)
class CaseView:
    dom_id: str
    area: str
    file: str
    name: str
    description: str
    verdict: str
    failing: bool
    message: str
    duration: str
    stderr: str
    rules: list[RuleRef]
    earlier: list[StepView]  # steps before the first one that did not pass, folded
    shown: list[StepView]  # from the first step that did not pass on
    not_run: int
    reason: str = ""  # why an expected failure was expected
    entry: str = ""  # the --expected-failures entry that matched
    hint: str = ""  # what to do about it (an unexpected pass)
    gist: str = ""  # the one line shown while the case is folded
    open: bool = False  # starts unfolded
    lazy: bool = False  # its details come from a data block when it is unfolded

    @property
    def key(self) -> str:
        return f"{self.area}/{self.name}"


@dataclass(frozen=True)
class CaseGroup:
    dom_id: str
    title: str
    note: str
    failing: bool
    cases: list[CaseView]


@dataclass(frozen=True)
class VerdictCount:
    verdict: str
    count: int


@dataclass(frozen=True)
class AreaTotal:
    area: str
    counts: list[int]  # in the order of ReportView.verdict_columns
    total: int
    failing: int


@dataclass(frozen=True)
class RuleTotal:
    anchor: str
    title: str
    known: bool
    total: int
    passed: int
    failing: int
    other: int


@dataclass(frozen=True)
class RuleCaseLink:
    dom_id: str
    key: str
    verdict: str


@dataclass(frozen=True)
class RuleSection:
    anchor: str
    title: str
    html: Markup
    source: str
    cases: list[RuleCaseLink]
    more_cases: int = 0  # cases beyond those linked


@dataclass(frozen=True)
class DecisionView:
    """A decision every case of which failed: the two readings side by side, and those cases."""

    anchor: str
    question: str
    reading: str
    other: str
    cases: list[RuleCaseLink]


@dataclass(frozen=True)
class ComparisonGroup:
    title: str
    dom_id: str
    changes: list[tuple[CaseChange, str]]  # the change and its case's id on this page ("" if gone)


@dataclass(frozen=True)
class ReportView:
    title: str
    impl_name: str
    impl_version: str
    impl_language: str
    impl_spec: str
    spec_version: str
    spec_source: str
    ctxconf_version: str
    areas: list[str]
    started: str
    finished: str
    duration: str
    options: list[tuple[str, str]]
    passed: bool
    status: str
    totals: list[VerdictCount]
    case_count: int
    verdict_columns: list[str]
    area_totals: list[AreaTotal]
    rule_totals: list[RuleTotal]
    groups: list[CaseGroup]
    rules: list[RuleSection]
    comparison: list[ComparisonGroup] = field(default_factory=list)
    comparison_label: str = ""
    decisions: list[DecisionView] = field(default_factory=list)  # read the other way
    interrupted: str = ""  # the note at the top of an interrupted run's report


# ---------------------------------------------------------------- building the view


def _text(value: object, default: str = "") -> str:
    if value is None:
        return default
    return value if isinstance(value, str) else str(value)


def _seconds(value: object) -> str:
    if not isinstance(value, (int, float)):
        return ""
    if value < 1:
        return f"{value * 1000:.0f} ms" if value >= 0.001 else f"{value * 1000:.2f} ms"
    return f"{value:.2f} s"


class _Ids:
    """Unique element ids; a slug taken many times costs one step each time, not one per use."""

    def __init__(self, taken: Iterable[str]) -> None:
        self.taken = set(taken)
        self.next_number: dict[str, int] = {}

    def make(self, prefix: str, parts: Sequence[str]) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", "--".join(parts).lower()).strip("-") or "x"
        base = f"{prefix}-{slug}"
        candidate, number = base, self.next_number.get(base, 2)
        while candidate in self.taken:
            candidate, number = f"{base}-{number}", number + 1
        self.next_number[base] = number
        self.taken.add(candidate)
        return candidate


def _clip(text: str, limit: int, keep_end: bool = False) -> str:
    if len(text) <= limit:
        return text
    left_out = (
        f"[… {len(text) - limit:,} characters not shown; the whole text is in the results file]"
    )
    return f"{left_out}\n{text[-limit:]}" if keep_end else f"{text[:limit]}\n{left_out}"


def _gist(text: str) -> str:
    line = text.strip().split("\n", 1)[0] if text.strip() else ""
    return line if len(line) <= GIST_CHARS else line[: GIST_CHARS - 1] + "…"


def _step_fields(step: Mapping[str, Any], compact: bool) -> list[StepField]:
    fields = []
    for name, value in step.items():
        if name == "op":
            continue
        if isinstance(value, str) and (
            not value or "\n" in value or len(value) > 60 or value != value.strip()
        ):
            fields.append(_block_field(name, value, compact))
        elif isinstance(value, str):
            fields.append(StepField(name, value, []))
        elif isinstance(value, (int, float, bool)) or value is None:
            fields.append(StepField(name, json.dumps(value), []))
        else:
            fields.append(
                _block_field(name, json.dumps(value, indent=2, ensure_ascii=False), compact)
            )
    return fields


def _block_field(name: str, text: str, compact: bool) -> StepField:
    if compact:
        lines = text.count("\n") + (0 if not text or text.endswith("\n") else 1)
        return StepField(name, "", [], _count(lines, "line"))
    return StepField(name, "", text_cells(text))


class _DiffBudget:
    """What is left of `PAGE_DIFF_BUDGET` as the page's diffs are made, in page order."""

    def __init__(self) -> None:
        self.left = PAGE_DIFF_BUDGET

    def diff(self, expected: str, actual: str | None, compact: bool) -> DiffView:
        bounds = NOTHING if self.left <= 0 else COMPACT_BOUNDS if compact else FULL
        view = diff_view(expected, actual, bounds)
        self.left -= view.html_size
        if bounds is NOTHING:
            return replace(view, summary=f"{view.summary}: the page's room for diffs is used up")
        return view


def _step_view(
    raw: Mapping[str, Any], with_diff: bool, budget: _DiffBudget, compact: bool = False
) -> StepView:
    step = raw.get("step") if isinstance(raw.get("step"), Mapping) else {}
    assert isinstance(step, Mapping)
    expected = _text(raw.get("expected"))
    actual = raw.get("actual")
    verdict = _text(raw.get("verdict"), "not-run")
    show_diff = with_diff and verdict in DIFF_STEP_VERDICTS
    index = raw.get("index")
    return StepView(
        index=index if isinstance(index, int) else 0,
        op=_text(step.get("op"), "?"),
        verdict=verdict,
        fields=_step_fields(step, compact),
        expected=[] if show_diff or compact else text_cells(expected),
        diff=budget.diff(expected, actual if isinstance(actual, str) else None, compact)
        if show_diff
        else None,
        message=_clip(
            _text(raw.get("message")), COMPACT_MESSAGE_CHARS if compact else MAX_MESSAGE_CHARS
        ),
    )


class _RuleRefs:
    """Each rule's reference, its text rendered once however many cases name it."""

    def __init__(self, rules: Mapping[str, Rule]) -> None:
        self.rules = rules
        self.anchors = frozenset(rules)
        self.made: dict[str, RuleRef] = {}

    def get(self, anchor: str) -> RuleRef:
        if anchor not in self.made:
            rule = self.rules.get(anchor)
            self.made[anchor] = (
                RuleRef(anchor, rule.title, True, markdown_html(rule.text, self.anchors))
                if rule is not None
                else RuleRef(anchor, "", False, Markup(""))
            )
        return self.made[anchor]


def _case_view(
    raw: Mapping[str, Any],
    refs: _RuleRefs,
    ids: _Ids,
    expected_failures_file: str,
    budget: _DiffBudget,
    *,
    compact: bool = False,
    start_open: bool = False,
) -> CaseView:
    area, name = _text(raw.get("area")), _text(raw.get("name"))
    verdict = _text(raw.get("verdict"), "error")
    message = _clip(
        _text(raw.get("message")), COMPACT_MESSAGE_CHARS if compact else MAX_MESSAGE_CHARS
    )
    listed = raw.get("expected_failure")
    entry = _text(listed.get("entry")) if isinstance(listed, Mapping) else ""
    reason = _text(listed.get("reason")) if isinstance(listed, Mapping) else ""
    if not isinstance(listed, Mapping) and verdict in ("expected-failure", "unexpected-pass"):
        reason, message = message, ""  # a file that kept only the reason, in the message
    hint = ""
    if verdict == "unexpected-pass":
        hint = _unexpected_pass_hint(entry or name, expected_failures_file)
        message = ""  # it says what the hint and the reason say
    gist = {"unexpected-pass": hint, "expected-failure": reason}.get(verdict, message)
    steps = [s for s in raw.get("steps") or [] if isinstance(s, Mapping)]
    first_open = next((i for i, s in enumerate(steps) if s.get("verdict") != "pass"), len(steps))
    shown_raw = [s for s in steps[first_open:] if s.get("verdict") != "not-run"]
    # Passing cases need no step detail: the page stays small (every case's texts would not).
    detailed = verdict != "pass" or any(s.get("verdict") in DIFF_STEP_VERDICTS for s in steps)
    shown = [_step_view(s, True, budget, compact) for s in shown_raw] if detailed else []
    if not gist:
        gist = next((f"step {s.index}: {s.diff.summary}" for s in shown if s.diff), "")
    return CaseView(
        dom_id=ids.make("case", [area, name]),
        area=area,
        file=_text(raw.get("file")),
        name=name,
        description=_text(raw.get("description")),
        verdict=verdict,
        failing=verdict in FAILING,
        message=message,
        duration=_seconds(raw.get("duration")),
        stderr=_clip(
            _text(raw.get("stderr")),
            COMPACT_STDERR_CHARS if compact else MAX_STDERR_CHARS,
            keep_end=True,
        ),
        rules=[refs.get(_text(a)) for a in raw.get("rules") or []],
        earlier=[_step_view(s, False, budget, compact) for s in steps[:first_open]]
        if detailed
        else [],
        shown=shown,
        not_run=sum(1 for s in steps if s.get("verdict") == "not-run"),
        reason=reason,
        entry=entry,
        hint=hint,
        gist=_gist(gist),
        open=start_open,
        lazy=compact,
    )


def _unexpected_pass_hint(entry: str, expected_failures_file: str) -> str:
    where = expected_failures_file or "the expected failures file"
    return f"this case now passes: remove its entry `{entry}` from {where}"


_GROUPS: tuple[tuple[str, str, str, bool], ...] = (
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


def _group_of(raw: Mapping[str, Any]) -> str:
    verdict = _text(raw.get("verdict"), "error")
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
    name the failures that are exactly a decision's cases."""
    header = results_doc.get("header") or {}
    footer = results_doc.get("footer") or {}
    implementation = header.get("implementation") or {}
    ids = _Ids(rules)  # case ids must not collide with the rules' ids
    options = header.get("options") or {}
    listed_in = _text(options.get("expected_failures"))
    raw_cases = [c for c in results_doc.get("cases") or [] if isinstance(c, Mapping)]
    refs = _RuleRefs(rules)
    keys = [_group_of(raw) for raw in raw_cases]
    # Cases with details, in page order: the first EAGER_CASES carry them in the page.
    by_key: dict[str, list[int]] = {key: [] for key, *_ in _GROUPS}
    for index, key in enumerate(keys):
        by_key[key].append(index)
    detailed = [i for key, *_ in _GROUPS if key != "passed" for i in by_key[key]]
    eager = set(detailed[:EAGER_CASES])
    start_open = len(detailed) <= OPEN_CASES
    budget = _DiffBudget()
    made: dict[int, CaseView] = {}
    for index in [*detailed, *by_key["passed"]]:  # in page order: the diff budget runs down so
        made[index] = _case_view(
            raw_cases[index], refs, ids, listed_in, budget,
            compact=keys[index] != "passed" and index not in eager, start_open=start_open,
        )  # fmt: skip
    cases = [made[index] for index in range(len(raw_cases))]

    grouped: dict[str, list[CaseView]] = {key: [] for key, *_ in _GROUPS}
    for key, case in zip(keys, cases, strict=True):
        grouped[key].append(case)
    groups = [
        CaseGroup(key, title, note, any(c.failing for c in grouped[key]), grouped[key])
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

    case_by_key = {case.key: case for case in cases}
    outcomes = ((c.key, [ref.anchor for ref in c.rules], c.verdict == "fail") for c in cases)
    read_otherwise = [
        DecisionView(
            group.decision.anchor,
            group.decision.question,
            group.decision.reading,
            group.decision.other,
            [
                RuleCaseLink(case_by_key[key].dom_id, key, case_by_key[key].verdict)
                for key in group.cases[:MAX_RULE_CASE_LINKS]
            ],
        )
        for group in decision_groups(outcomes, decisions or {})
    ]

    failing_count = sum(1 for c in cases if c.failing)
    interrupted = footer.get("interrupted") is True
    exit_code = footer.get("exit_code")
    passed = failing_count == 0 and exit_code in (0, None) and not interrupted
    # A skipped case was never judged (its area is not offered, or it was declined): it is not
    # one of the cases that could fail.
    judged = len(cases) - counts.get("skipped", 0)
    status = _status(failing_count, judged, counts.get("pass", 0))
    name = _text(implementation.get("name"), "implementation")
    return ReportView(
        title=f"ctxconf report: {name} {_text(implementation.get('version'))}".strip(),
        impl_name=name,
        impl_version=_text(implementation.get("version")),
        impl_language=_text(implementation.get("language")),
        impl_spec=_text(header.get("impl")),
        spec_version=_text(header.get("spec_version")),
        spec_source=_spec_source(rules, _text(header.get("spec_dir"))),
        ctxconf_version=_text(header.get("ctxconf_version")),
        areas=[_text(a) for a in header.get("areas") or []],
        started=_text(header.get("started")),
        finished=_text(footer.get("finished")),
        duration=_seconds(footer.get("duration")),
        options=[(_text(k), json.dumps(v, ensure_ascii=False)) for k, v in options.items()],
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
            f"This run was interrupted: only the {_count(len(cases), 'case')} it finished "
            f"{'is' if len(cases) == 1 else 'are'} here; the others were not run."
            if interrupted
            else ""
        ),
    )


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _status(failing: int, judged: int, passed: int) -> str:
    if judged == 0:
        return "No case was run."
    if failing:
        return f"{failing:,} of {_count(judged, 'case')} failing"
    if passed == judged:
        return f"All {_count(judged, 'case')} pass" if judged != 1 else "The 1 case passes"
    return f"No failing case among {_count(judged, 'case')}"


def _spec_source(rules: Mapping[str, Rule], fallback: str) -> str:
    folders = sorted({str(rule.path.parent) for rule in rules.values() if rule.path})
    return ", ".join(folders) or fallback


def format_comparison(comparison: Comparison) -> str:
    """The comparison as plain text lines, for the terminal."""
    lines = [f"compared with {comparison.earlier}:" if comparison.earlier else "compared:"]
    for title, changes in _comparison_lists(comparison):
        lines.append(f"  {title}: {len(changes)}")
        for change in changes:
            lines.append(f"    {change.key}  ({change.before or '-'} -> {change.after or '-'})")
    return "\n".join(lines)


def _comparison_lists(comparison: Comparison) -> list[tuple[str, list[CaseChange]]]:
    return [
        ("newly failing", comparison.newly_failing),
        ("newly passing", comparison.newly_passing),
        ("still failing", comparison.still_failing),
        ("added", comparison.added),
        ("removed", comparison.removed),
    ]


def _with_comparison(view: ReportView, comparison: Comparison) -> ReportView:
    ids = {case.key: case.dom_id for group in view.groups for case in group.cases}
    groups = [
        ComparisonGroup(
            title, "cmp-" + title.replace(" ", "-"), [(c, ids.get(c.key, "")) for c in changes]
        )
        for title, changes in _comparison_lists(comparison)
    ]
    return replace(view, comparison=groups, comparison_label=comparison.earlier)


# ---------------------------------------------------------------- rendering and files


def _environment() -> Environment:
    environment = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["data_block"] = data_block
    return environment


def data_block(html: str) -> Markup:
    """Escaped HTML as the JSON text of a `<script type="application/json">` data block.

    Only `<` needs escaping there (it alone could end the block or open a comment); escaping it
    alone keeps the block nearly as small as the HTML it carries.
    """
    return Markup(json.dumps(str(html), ensure_ascii=False).replace("<", "\\u003c"))


def render_html(view: ReportView) -> str:
    """The page for a view: CSS and JS inline, and a CSP that allows only that script."""
    script = (TEMPLATES / "report.js").read_text(encoding="utf-8")
    css = (TEMPLATES / "report.css").read_text(encoding="utf-8")
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            view=view,
            css=Markup(css),
            script=Markup(script),
            style_hash=_csp_hash(css),
            script_hash=_csp_hash(script),
        )
    )


def _csp_hash(source: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode()


def results_document(results: object) -> dict[str, Any]:
    """The plain JSON document of results given as a dict or as an object that converts to one."""
    if isinstance(results, Mapping):
        return dict(results)
    for method in ("to_json", "as_dict"):
        if hasattr(results, method):
            value = getattr(results, method)()
            if isinstance(value, (str, bytes)):
                value = json.loads(value)
            if isinstance(value, Mapping):
                return dict(value)
    raise TypeError(f"cannot read results from {type(results).__name__}: no to_json() or as_dict()")


def _spec_folder(results_doc: Mapping[str, Any]) -> Path:
    """The spec folder the run used: its `spec_dir` if that exists, else the bundled one."""
    spec_dir = (results_doc.get("header") or {}).get("spec_dir")
    folder = Path(spec_dir) if isinstance(spec_dir, str) and spec_dir else None
    if folder is None or not folder.is_dir():
        folder = bundled_spec_dir()
    return folder


def spec_rules_for(results_doc: Mapping[str, Any]) -> dict[str, Rule]:
    """The rules of the spec the run used: from its `spec_dir` if that exists, else the bundled."""
    return load_rules(_spec_folder(results_doc), strict=False)


def spec_decisions_for(results_doc: Mapping[str, Any]) -> dict[str, Decision]:
    """The decisions of the spec the run used, with their two readings."""
    return load_decisions(_spec_folder(results_doc))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it private; a report is not
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


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


def load_results_document(path: Path) -> dict[str, Any]:
    """Read a results file, validated by the runner's loader (`ResultsFileError` names the file)."""
    return results_document(load_results(path))


@dataclass(frozen=True)
class ReportOutcome:
    html_path: Path | None  # None: no page was asked for (a comparison alone)
    comparison: Comparison | None

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
    return ReportOutcome(out, comparison)
