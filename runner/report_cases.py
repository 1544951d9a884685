"""One case's view: its steps and their fields, the texts an implementation sent clipped, the
diffs of its failing steps made within what is left of the page's room for them, and the rules it
names rendered once for the whole page.

A case past the page's first `report.EAGER_CASES` is compact: it shows less of each text, and the
page carries its details in a data block.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from markupsafe import Markup

from ctxconf.spectext.rules import Rule
from ctxconf.userfiles import limits

from .report_compare import FAILING
from .report_diff import FULL, NOTHING, Bounds, DiffView, diff_view, text_cells
from .report_markdown import markdown_html
from .report_model import CaseView, RuleRef, StepField, StepView

DIFF_STEP_VERDICTS = frozenset({"fail", "equivalent-diff"})
MAX_MESSAGE_CHARS = 20_000  # of a case's or a step's message, from its start
MAX_STDERR_CHARS = 64 * 1024  # of a case's stderr, from its end
# A compact case (past EAGER_CASES) shows less of each text an implementation sent.
COMPACT_BOUNDS = Bounds(200, 20_000)
COMPACT_MESSAGE_CHARS = 2000
COMPACT_STDERR_CHARS = 4096
GIST_CHARS = 160  # the one line a folded case shows


def text(value: object, default: str = "") -> str:
    if value is None:
        return default
    return value if isinstance(value, str) else str(value)


def seconds(value: object) -> str:
    if not isinstance(value, (int, float)):
        return ""
    if value < 1:
        return f"{value * 1000:.0f} ms" if value >= 0.001 else f"{value * 1000:.2f} ms"
    return f"{value:.2f} s"


class Ids:
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
            fields.append(StepField(name, limits.dumps(value), []))
        else:
            fields.append(
                _block_field(name, limits.dumps(value, indent=2, ensure_ascii=False), compact)
            )
    return fields


def _block_field(name: str, text: str, compact: bool) -> StepField:
    if compact:
        lines = text.count("\n") + (0 if not text or text.endswith("\n") else 1)
        return StepField(name, "", [], count(lines, "line"))
    return StepField(name, "", text_cells(text))


class DiffBudget:
    """What is left of the page's room for diffs (`report.PAGE_DIFF_BUDGET`) as the page's diffs
    are made, in page order."""

    def __init__(self, size: int) -> None:
        self.left = size

    def diff(
        self, expected: str, actual: str | None, compact: bool, errored: bool = False
    ) -> DiffView:
        bounds = NOTHING if self.left <= 0 else COMPACT_BOUNDS if compact else FULL
        view = diff_view(expected, actual, bounds, errored=errored)
        self.left -= view.html_size
        if bounds is NOTHING:
            return replace(view, summary=f"{view.summary}: the page's room for diffs is used up")
        return view


def _step_view(
    raw: Mapping[str, Any], with_diff: bool, budget: DiffBudget, compact: bool = False
) -> StepView:
    step = raw.get("step") if isinstance(raw.get("step"), Mapping) else {}
    assert isinstance(step, Mapping)
    expected = text(raw.get("expected"))
    actual = raw.get("actual")
    verdict = text(raw.get("verdict"), "not-run")
    show_diff = with_diff and verdict in DIFF_STEP_VERDICTS
    index = raw.get("index")
    return StepView(
        index=index if isinstance(index, int) else 0,
        op=text(step.get("op"), "?"),
        verdict=verdict,
        fields=_step_fields(step, compact),
        expected=[] if show_diff or compact else text_cells(expected),
        diff=budget.diff(
            expected,
            actual if isinstance(actual, str) else None,
            compact,
            errored=actual is None and bool(text(raw.get("message"))),
        )
        if show_diff
        else None,
        message=_clip(
            text(raw.get("message")), COMPACT_MESSAGE_CHARS if compact else MAX_MESSAGE_CHARS
        ),
    )


class RuleRefs:
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


def case_view(
    raw: Mapping[str, Any],
    refs: RuleRefs,
    ids: Ids,
    expected_failures_file: str,
    budget: DiffBudget,
    *,
    compact: bool = False,
    start_open: bool = False,
) -> CaseView:
    area, name = text(raw.get("area")), text(raw.get("name"))
    verdict = text(raw.get("verdict"), "error")
    message = _clip(
        text(raw.get("message")), COMPACT_MESSAGE_CHARS if compact else MAX_MESSAGE_CHARS
    )
    listed = raw.get("expected_failure")
    entry = text(listed.get("entry")) if isinstance(listed, Mapping) else ""
    reason = text(listed.get("reason")) if isinstance(listed, Mapping) else ""
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
        file=text(raw.get("file")),
        name=name,
        description=text(raw.get("description")),
        verdict=verdict,
        failing=verdict in FAILING,
        message=message,
        duration=seconds(raw.get("duration")),
        stderr=_clip(
            text(raw.get("stderr")),
            COMPACT_STDERR_CHARS if compact else MAX_STDERR_CHARS,
            keep_end=True,
        ),
        rules=[refs.get(text(a)) for a in raw.get("rules") or []],
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


def count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"
