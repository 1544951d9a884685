"""The report's view-model: what the page shows, as plain frozen records the template reads.

Built by `report.build_view` (a case by `report_cases`), rendered by `report_page`; nothing here
reads a file or formats a text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from markupsafe import Markup

from .report_compare import CaseChange
from .report_diff import Cell, DiffView


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
