"""The HTML report of a run, rendered only from its results file through a small view-model.

`build_view` turns the plain JSON document of the results format (notes: results-format) and the
spec's rules into a `ReportView`; the Jinja2 template `templates/report.html.j2` renders that view
into one self-contained page (inline CSS and JS, nothing fetched). Texts an implementation sent
(outputs, stderr, messages, names) reach the page only escaped: through autoescaping, or through
`markupsafe.escape` where this module builds the marked-up diff lines itself.

`compare_results` lists what changed between two runs; `render_report` is what `ctxconf report`
calls. Errors: `ResultsFileError` (code ``results-file``) for a results file that cannot be read,
is not valid, or was cut short.
"""

from __future__ import annotations

import base64
import difflib
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
from markupsafe import Markup, escape

from ctxconf.paths import bundled_spec_dir
from ctxconf.spec_rules import Rule, load_rules

TEMPLATES = Path(__file__).resolve().parent / "templates"

# Case verdicts that make a run fail (the runner's exit code 1), and how they are grouped on the page.
FAILING = frozenset({"fail", "equivalent-diff", "error", "timeout", "crash", "unexpected-pass"})
VERDICT_ORDER = (
    "fail", "error", "timeout", "crash", "unexpected-pass", "equivalent-diff",
    "expected-failure", "skipped", "pass",
)  # fmt: skip
DIFF_STEP_VERDICTS = frozenset({"fail", "equivalent-diff"})
# Beyond this many characters a changed line is marked whole: difflib's matcher is quadratic.
_INTRALINE_LIMIT = 2000


@dataclass(frozen=True)
class ResultsFileError(Exception):
    path: Path
    reason: str
    code: str = "results-file"
    hint: str = "give the JSON file written by `ctxconf run --json`; a run cut short has no footer"

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


# ---------------------------------------------------------------- view-model


@dataclass(frozen=True)
class Cell:
    """One line of one side of a diff (or of a shown text); `html` is already escaped."""

    kind: str  # same | del | ins | filler | note
    number: int | None
    html: Markup


@dataclass(frozen=True)
class DiffRow:
    expected: Cell
    actual: Cell


@dataclass(frozen=True)
class DiffView:
    rows: list[DiffRow]
    summary: str


@dataclass(frozen=True)
class StepField:
    name: str
    inline: str  # short values, shown on one line
    lines: list[Cell]  # long or multi-line strings, shown with their whitespace visible


@dataclass(frozen=True)
class StepView:
    index: int
    op: str
    verdict: str
    fields: list[StepField]
    expected: list[Cell]
    diff: DiffView | None  # for a failing or equivalent step: expected beside actual


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


@dataclass(frozen=True)
class CaseChange:
    area: str
    name: str
    before: str | None  # verdict in the earlier run; None when the case is new
    after: str | None  # verdict in this run; None when the case is gone

    @property
    def key(self) -> str:
        return f"{self.area}/{self.name}"


@dataclass(frozen=True)
class Comparison:
    earlier: str  # what the earlier run is called on the page (its file name)
    newly_failing: list[CaseChange]
    newly_passing: list[CaseChange]
    still_failing: list[CaseChange]
    added: list[CaseChange]
    removed: list[CaseChange]


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


# ---------------------------------------------------------------- visible text and diffs

_NOEOL = ""  # token for the end of a last line that has no newline
_SPECIAL = {
    "\t": ("→", "tab", "tab"),
    "\r": ("␍", "cr", "carriage return"),
    "\u00a0": ("⍽", "ws", "no-break space"),
    "\u200b": ("⸤", "ws", "zero-width space"),
    "\ufeff": ("⸤", "ws", "byte order mark"),
}


def _char_html(char: str, trailing: bool) -> Markup:
    if char == "\n":
        return Markup('<span class="eol" title="end of line">↵</span>')
    if char == _NOEOL:
        return Markup('<span class="noeol" title="no newline at the end">no final newline</span>')
    if char == " " and trailing:
        return Markup('<span class="ws trail" title="space at end of line">·</span>')
    if char in _SPECIAL:
        glyph, cls, title = _SPECIAL[char]
        extra = " trail" if trailing else ""
        return Markup('<span class="{}{}" title="{}">{}</span>').format(cls, extra, title, glyph)
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        glyph = "␡" if code == 0x7F else chr(0x2400 + code)
        return Markup('<span class="ws" title="control character U+{:04X}">{}</span>').format(
            code, glyph
        )
    return escape(char)


def _split_lines(text: str) -> list[list[str]]:
    """Lines as token lists: each character, then "\\n" or the no-final-newline token."""
    if text == "":
        return []
    parts = text.split("\n")
    lines = [[*part, "\n"] for part in parts[:-1]]
    if parts[-1]:
        lines.append([*parts[-1], _NOEOL])
    return lines


def _line_html(tokens: Sequence[str], changed: Sequence[bool] | None = None) -> Markup:
    body_end = len(tokens) - 1 if tokens and tokens[-1] in ("\n", _NOEOL) else len(tokens)
    trail_from = body_end
    while trail_from > 0 and tokens[trail_from - 1] in (" ", "\t"):
        trail_from -= 1
    pieces: list[str] = []
    marking = False
    for index, token in enumerate(tokens):
        mark = bool(changed and changed[index])
        if mark != marking:
            pieces.append('<span class="chg">' if mark else "</span>")
            marking = mark
        pieces.append(_char_html(token, trailing=trail_from <= index < body_end))
    if marking:
        pieces.append("</span>")
    return Markup("".join(pieces))


def text_cells(text: str) -> list[Cell]:
    """A text as numbered lines with its whitespace and line ends visible."""
    lines = _split_lines(text)
    if not lines:
        return [Cell("note", None, Markup('<span class="empty">(empty text)</span>'))]
    return [Cell("same", number, _line_html(tokens)) for number, tokens in enumerate(lines, 1)]


def _intraline(a: list[str], b: list[str]) -> tuple[list[bool], list[bool]]:
    if len(a) > _INTRALINE_LIMIT or len(b) > _INTRALINE_LIMIT:
        return [True] * len(a), [True] * len(b)
    marks_a, marks_b = [True] * len(a), [True] * len(b)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for block in matcher.get_matching_blocks():
        marks_a[block.a : block.a + block.size] = [False] * block.size
        marks_b[block.b : block.b + block.size] = [False] * block.size
    return marks_a, marks_b


_FILLER = Cell("filler", None, Markup(""))


def diff_view(expected: str, actual: str | None) -> DiffView:
    """Expected beside actual, line by line, with changed lines and characters marked."""
    left = _split_lines(expected)
    if actual is None:
        rows = [DiffRow(Cell("del", n, _line_html(t)), _FILLER) for n, t in enumerate(left, 1)]
        missing = Cell("note", None, Markup('<span class="empty">(nothing received)</span>'))
        rows = rows or [DiffRow(Cell("note", None, Markup('<span class="empty">(empty text)</span>')), missing)]
        rows[0] = DiffRow(rows[0].expected, missing)
        return DiffView(rows, "no output received for this step")
    right = _split_lines(actual)
    rows = []
    differing = 0
    matcher = difflib.SequenceMatcher(None, ["".join(t) for t in left], ["".join(t) for t in right], autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            for offset in range(a1 - a0):
                rows.append(
                    DiffRow(
                        Cell("same", a0 + offset + 1, _line_html(left[a0 + offset])),
                        Cell("same", b0 + offset + 1, _line_html(right[b0 + offset])),
                    )
                )
            continue
        differing += max(a1 - a0, b1 - b0)
        for offset in range(max(a1 - a0, b1 - b0)):
            i, j = a0 + offset, b0 + offset
            a = left[i] if i < a1 else None
            b = right[j] if j < b1 else None
            if a is not None and b is not None:
                marks_a, marks_b = _intraline(a, b)
                rows.append(
                    DiffRow(Cell("del", i + 1, _line_html(a, marks_a)), Cell("ins", j + 1, _line_html(b, marks_b)))
                )
            elif a is not None:
                rows.append(DiffRow(Cell("del", i + 1, _line_html(a, [True] * len(a))), _FILLER))
            elif b is not None:
                rows.append(DiffRow(_FILLER, Cell("ins", j + 1, _line_html(b, [True] * len(b)))))
    if not rows:
        empty = Cell("note", None, Markup('<span class="empty">(empty text)</span>'))
        rows.append(DiffRow(empty, empty))
    if differing == 0:
        summary = "identical texts"
    else:
        summary = f"{differing} line{'s' if differing != 1 else ''} differ"
    return DiffView(rows, summary)


# ---------------------------------------------------------------- spec text as HTML

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_STRONG = re.compile(r"\*\*(.+?)\*\*")
_EM = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d+[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def _inline(text: str, anchors: frozenset[str]) -> Markup:
    out: list[str] = []
    last = 0
    for match in _CODE_SPAN.finditer(text):
        out.append(_inline_plain(text[last : match.start()]))
        code = match.group(2).strip()
        code_html = Markup("<code>{}</code>").format(code)
        if code in anchors:
            code_html = Markup('<a class="rule" href="#{}">{}</a>').format(code, code_html)
        out.append(code_html)
        last = match.end()
    out.append(_inline_plain(text[last:]))
    return Markup("".join(out))


def _inline_plain(text: str) -> str:
    html = str(escape(text))

    def link(match: re.Match[str]) -> str:
        label, target = match.group(1), match.group(2)
        # Only links inside the page stay links: the report fetches and points at nothing outside.
        if target.startswith("#"):
            return f'<a href="{target}">{label}</a>'
        return f"{label} ({target})"

    html = _LINK.sub(link, html)
    html = _STRONG.sub(r"<strong>\1</strong>", html)
    return _EM.sub(r"<em>\1</em>", html)


def markdown_html(text: str, anchors: Iterable[str] = ()) -> Markup:
    """A small, escaping subset of Markdown for rule texts: paragraphs, lists, code, emphasis."""
    known = frozenset(anchors)
    blocks: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []
    lines = text.split("\n")

    def flush() -> None:
        if paragraph:
            if all(line.lstrip().startswith("|") for line in paragraph):
                blocks.append(str(Markup("<pre>{}</pre>").format("\n".join(paragraph))))
            else:
                blocks.append(f"<p>{_inline(' '.join(s.strip() for s in paragraph), known)}</p>")
            paragraph.clear()
        if items:
            blocks.append("<ul>" + "".join(f"<li>{_inline(i, known)}</li>" for i in items) + "</ul>")
            items.clear()

    index = 0
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence:
            flush()
            marker = fence.group(1)
            code: list[str] = []
            index += 1
            while index < len(lines) and not lines[index].strip().startswith(marker):
                code.append(lines[index])
                index += 1
            blocks.append(str(Markup("<pre><code>{}</code></pre>").format("\n".join(code))))
        elif not line.strip():
            flush()
        elif item := _LIST_ITEM.match(line):
            if paragraph:
                flush()
            items.append(item.group(1))
        elif items and line.startswith((" ", "\t")):
            items[-1] += " " + line.strip()
        else:
            if items:
                flush()
            paragraph.append(line)
        index += 1
    flush()
    return Markup("\n".join(blocks))


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


def _dom_id(prefix: str, parts: Sequence[str], taken: set[str]) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", "--".join(parts).lower()).strip("-") or "x"
    candidate, number = f"{prefix}-{slug}", 2
    while candidate in taken:
        candidate, number = f"{prefix}-{slug}-{number}", number + 1
    taken.add(candidate)
    return candidate


def _step_fields(step: Mapping[str, Any]) -> list[StepField]:
    fields = []
    for name, value in step.items():
        if name == "op":
            continue
        if isinstance(value, str) and ("\n" in value or len(value) > 60 or value != value.strip()):
            fields.append(StepField(name, "", text_cells(value)))
        elif isinstance(value, str):
            fields.append(StepField(name, value, []))
        elif isinstance(value, (int, float, bool)) or value is None:
            fields.append(StepField(name, json.dumps(value), []))
        else:
            pretty = json.dumps(value, indent=2, ensure_ascii=False)
            fields.append(StepField(name, "", text_cells(pretty)))
    return fields


def _step_view(raw: Mapping[str, Any], with_diff: bool) -> StepView:
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
        fields=_step_fields(step),
        expected=[] if show_diff else text_cells(expected),
        diff=diff_view(expected, actual if isinstance(actual, str) else None) if show_diff else None,
    )


def _rule_ref(anchor: str, rules: Mapping[str, Rule], anchors: frozenset[str]) -> RuleRef:
    rule = rules.get(anchor)
    if rule is None:
        return RuleRef(anchor, "", False, Markup(""))
    return RuleRef(anchor, rule.title, True, markdown_html(rule.text, anchors))


def _case_view(
    raw: Mapping[str, Any], rules: Mapping[str, Rule], anchors: frozenset[str], taken: set[str]
) -> CaseView:
    area, name = _text(raw.get("area")), _text(raw.get("name"))
    verdict = _text(raw.get("verdict"), "error")
    steps = [s for s in raw.get("steps") or [] if isinstance(s, Mapping)]
    first_open = next((i for i, s in enumerate(steps) if s.get("verdict") != "pass"), len(steps))
    shown_raw = [s for s in steps[first_open:] if s.get("verdict") != "not-run"]
    # Passing cases need no step detail: the page stays small (every case's texts would not).
    detailed = verdict != "pass" or any(s.get("verdict") in DIFF_STEP_VERDICTS for s in steps)
    return CaseView(
        dom_id=_dom_id("case", [area, name], taken),
        area=area,
        file=_text(raw.get("file")),
        name=name,
        description=_text(raw.get("description")),
        verdict=verdict,
        failing=verdict in FAILING,
        message=_text(raw.get("message")),
        duration=_seconds(raw.get("duration")),
        stderr=_text(raw.get("stderr")),
        rules=[_rule_ref(_text(a), rules, anchors) for a in raw.get("rules") or []],
        earlier=[_step_view(s, False) for s in steps[:first_open]] if detailed else [],
        shown=[_step_view(s, True) for s in shown_raw] if detailed else [],
        not_run=sum(1 for s in steps if s.get("verdict") == "not-run"),
    )


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


def _group_of(case: CaseView, has_equivalent_steps: bool) -> str:
    if case.verdict == "equivalent-diff" or (case.verdict == "pass" and has_equivalent_steps):
        return "equivalent"
    if case.failing:
        return "failures"
    if case.verdict == "expected-failure":
        return "expected-failures"
    if case.verdict == "skipped":
        return "skipped"
    return "passed"


def build_view(results_doc: Mapping[str, Any], rules: Mapping[str, Rule]) -> ReportView:
    """The report's view-model, from the plain JSON document of a results file."""
    header = results_doc.get("header") or {}
    footer = results_doc.get("footer") or {}
    implementation = header.get("implementation") or {}
    anchors = frozenset(rules)
    taken = set(rules)  # case ids must not collide with the rules' ids
    raw_cases = [c for c in results_doc.get("cases") or [] if isinstance(c, Mapping)]
    cases = [_case_view(raw, rules, anchors, taken) for raw in raw_cases]

    grouped: dict[str, list[CaseView]] = {key: [] for key, *_ in _GROUPS}
    for raw, case in zip(raw_cases, cases):
        equivalent = any(
            isinstance(s, Mapping) and s.get("verdict") == "equivalent-diff"
            for s in raw.get("steps") or []
        )
        grouped[_group_of(case, equivalent)].append(case)
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

    by_rule: dict[str, list[CaseView]] = {anchor: [] for anchor in rules}
    for case in cases:
        for ref in case.rules:
            by_rule.setdefault(ref.anchor, [])
            if case not in by_rule[ref.anchor]:
                by_rule[ref.anchor].append(case)
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
            markdown_html(rule.text, anchors),
            f"{rule.path.name}:{rule.line}" if rule.path else f"line {rule.line}",
            [RuleCaseLink(c.dom_id, c.key, c.verdict) for c in by_rule.get(rule.anchor, [])],
        )
        for rule in rules.values()
    ]

    failing_count = sum(1 for c in cases if c.failing)
    exit_code = footer.get("exit_code")
    passed = failing_count == 0 and exit_code in (0, None)
    if not cases:
        status = "No cases were run."
    elif failing_count:
        status = f"{failing_count} of {len(cases)} cases failing"
    else:
        status = f"All {len(cases)} cases pass" if counts.get("pass") == len(cases) else (
            f"No failing case among {len(cases)}"
        )
    name = _text(implementation.get("name"), "implementation")
    options = header.get("options") or {}
    return ReportView(
        title=f"ctxconf report: {name} {_text(implementation.get('version'))}".strip(),
        impl_name=name,
        impl_version=_text(implementation.get("version")),
        impl_language=_text(implementation.get("language")),
        impl_spec=_text(header.get("impl")),
        spec_version=_text(header.get("spec_version")),
        spec_source=_text(header.get("spec_dir")),
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
    )


# ---------------------------------------------------------------- comparing two runs


def _verdicts(doc: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for case in doc.get("cases") or []:
        if isinstance(case, Mapping):
            found.setdefault((_text(case.get("area")), _text(case.get("name"))), _text(case.get("verdict")))
    return found


def compare_results(earlier: Mapping[str, Any], later: Mapping[str, Any], label: str = "") -> Comparison:
    """What changed from an earlier run to a later one, case by case (by area and name)."""
    before, after = _verdicts(earlier), _verdicts(later)
    newly_failing, newly_passing, still_failing, added, removed = [], [], [], [], []
    for key, verdict in after.items():
        change = CaseChange(key[0], key[1], before.get(key), verdict)
        if key not in before:
            added.append(change)
        elif verdict in FAILING and before[key] in FAILING:
            still_failing.append(change)
        elif verdict in FAILING:
            newly_failing.append(change)
        elif before[key] in FAILING:
            newly_passing.append(change)
    for key, verdict in before.items():
        if key not in after:
            removed.append(CaseChange(key[0], key[1], verdict, None))
    return Comparison(label, newly_failing, newly_passing, still_failing, added, removed)


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
        ComparisonGroup(title, "cmp-" + title.replace(" ", "-"), [(c, ids.get(c.key, "")) for c in changes])
        for title, changes in _comparison_lists(comparison)
    ]
    return replace(view, comparison=groups, comparison_label=comparison.earlier)


# ---------------------------------------------------------------- rendering and files


def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_html(view: ReportView) -> str:
    """The page for a view: CSS and JS inline, and a CSP that allows only that script."""
    script = (TEMPLATES / "report.js").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return _environment().get_template("report.html.j2").render(
        view=view,
        css=Markup((TEMPLATES / "report.css").read_text(encoding="utf-8")),
        script=Markup(script),
        script_hash=f"sha256-{digest}",
    )


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


def spec_rules_for(results_doc: Mapping[str, Any]) -> dict[str, Rule]:
    """The rules of the spec the run used: its `spec_dir` when that folder exists, else the bundled spec."""
    spec_dir = (results_doc.get("header") or {}).get("spec_dir")
    folder = Path(spec_dir) if isinstance(spec_dir, str) and spec_dir else None
    if folder is None or not folder.is_dir():
        folder = bundled_spec_dir()
    return load_rules(folder, strict=False)


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
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
) -> None:
    """Render results (a results document, or an object with to_json()/as_dict()) to `path`."""
    doc = results_document(results)
    view = build_view(doc, spec_rules_for(doc) if rules is None else rules)
    if comparison is not None:
        view = _with_comparison(view, comparison)
    _write_atomic(Path(path), render_html(view))


def load_results_document(path: Path) -> dict[str, Any]:
    """Read and check a results file; raises `ResultsFileError` with the reason."""
    try:
        from ctxconf.runner import results as results_module
    except ImportError:
        results_module = None  # type: ignore[assignment]
    loader = getattr(results_module, "load_results", None)
    if loader is not None:
        try:
            return results_document(loader(path))
        except OSError as error:
            raise ResultsFileError(path, f"cannot read: {error.strerror or error}") from error
        except Exception as error:  # the loader's own error classes: invalid or truncated file
            raise ResultsFileError(path, str(error) or type(error).__name__) from error
    # Fallback until runner/results.py provides load_results; remove together with this block.
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ResultsFileError(path, f"cannot read: {error.strerror or error}") from error
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultsFileError(path, f"not a JSON results file ({error})") from error
    if not isinstance(doc, dict) or "footer" not in doc:
        raise ResultsFileError(path, "no footer: the run was cut short or this is not a results file")
    return doc


@dataclass(frozen=True)
class ReportOutcome:
    html_path: Path
    comparison: Comparison | None

    @property
    def exit_code(self) -> int:
        return 1 if self.comparison is not None and self.comparison.newly_failing else 0


def render_report(results_path: Path, html_path: Path | None = None, earlier_path: Path | None = None) -> ReportOutcome:
    """Re-render the report of a results file, compared with an earlier run when one is given."""
    doc = load_results_document(results_path)
    comparison = None
    if earlier_path is not None:
        comparison = compare_results(load_results_document(earlier_path), doc, earlier_path.name)
    out = html_path or results_path.with_suffix(".html")
    write_html(doc, out, comparison=comparison)
    return ReportOutcome(out, comparison)
