"""What a run shows on the terminal: progress, the failures (those of a decision read the other
way grouped under it, the others under a heading of their own), a summary per rule, and one line
of counts.

Differences in whitespace are the usual cause of a failing case, so the diffs show it: `·` for
a space at the end of a line, `→` for a tab, `␍` for a carriage return, and on changed lines `⏎`
where the line ends (a missing final newline shows as a line without it).

An implementation's output is untrusted: a text longer than MAX_SHOWN_CHARS is not diffed but
shown as its head and tail, with its full size and sha256, a diff or a stderr is cut to a
bounded number of lines, and no control character of its reaches the terminal (`⟨U+001B⟩`).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TextIO

from ctxconf.terminal import textdiff
from ctxconf.terminal.controls import visible_controls
from ctxconf.userfiles import limits

from .decision_groups import DecisionGroup
from .results import OK_VERDICTS, CaseResult, StepResult

_PLURALS = {
    "equivalent-diff": ("equivalent diff", "equivalent diffs"),
    "error": ("error", "errors"),
    "timeout": ("timeout", "timeouts"),
    "crash": ("crash", "crashes"),
    "unexpected-pass": ("unexpected pass", "unexpected passes"),
    "expected-failure": ("expected failure", "expected failures"),
    "skipped": ("skipped", "skipped"),
}
_STDERR_LINES = 20
_STDERR_LINE_CHARS = 300  # a longer stderr line is cut
MAX_SHOWN_CHARS = 20_000  # an output longer than this is shown as head and tail, not diffed
MAX_DIFF_LINES = 200  # a longer diff is cut, with the count of lines left out
_HEAD_TAIL_CHARS = 1_500  # how much of the head and of the tail of a long output is shown
PROGRESS_EVERY = 10.0  # seconds between progress lines off a terminal (in CI logs)


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def visible_diff(expected: str, actual: str, context: int = 3) -> str:
    """A unified diff of expected vs actual text, whitespace visible ("" when equal)."""
    return "\n".join(textdiff.visible_diff(expected, actual, context=context))


def _json_escape(char: str) -> str:
    """`char` as JSON writes it escaped (a pair of surrogates past U+FFFF)."""
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _step_input(step: Mapping[str, object], limit: int = 300) -> str:
    """The step as JSON, each character that reads as nothing or as another (U+00A0, U+FEFF,
    U+212A: `textdiff.disguised`) escaped, so that the input shows what was sent."""
    text = limits.dumps(dict(step), ensure_ascii=False)
    if not (text.isascii() and text.isprintable()):
        text = "".join(_json_escape(c) if textdiff.disguised(c) else c for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _size(text: str) -> str:
    data = text.encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(data).hexdigest()
    return f"{_plural(len(text), 'character')}, {_plural(len(data), 'byte')}, sha256 {digest}"


def head_and_tail(text: str, label: str = "actual") -> list[str]:
    """A long text, bounded: its size and sha256, its first and last characters."""
    head, tail = text[:_HEAD_TAIL_CHARS], text[-_HEAD_TAIL_CHARS:]
    left_out = len(text) - len(head) - len(tail)
    return [
        f"{label}: {_size(text)}; too long to diff, its head and tail:",
        *("  | " + line for line in head.split("\n")),
        f"  … {_plural(left_out, 'character')} left out …",
        *("  | " + line for line in tail.split("\n")),
    ]


def bounded_diff(expected: str, actual: str) -> list[str]:
    """The diff of expected and actual, or head and tail when actual is too long to diff."""
    if len(actual) > MAX_SHOWN_CHARS:
        return [f"expected: {_size(expected)}", *head_and_tail(actual)]
    lines = visible_diff(expected, actual).split("\n")
    if len(lines) > MAX_DIFF_LINES:
        more = len(lines) - MAX_DIFF_LINES
        lines = [*lines[:MAX_DIFF_LINES], f"… {_plural(more, 'more diff line')}"]
    return lines


def describe_step(case: CaseResult, step: StepResult) -> str:
    label = "EQUIVALENT DIFF" if step.verdict == "equivalent-diff" else "FAIL"
    lines = [
        f"{label} {case.name} step {step.index} ({step.step.get('op')})",
        f"  rules: {', '.join(case.rules) or '(none)'}",
        f"  input: {_step_input(step.step)}",
    ]
    if step.verdict == "equivalent-diff":
        lines.append(
            "  the same change as another diff; --accept-equivalent-diffs counts it as a pass"
        )
    if step.message:
        lines.append(f"  {step.message}")
    if step.actual is not None:
        lines.extend("  " + line for line in bounded_diff(step.expected, step.actual))
    return "\n".join(lines)


def _stderr_tail(stderr: str) -> list[str]:
    lines = stderr.rstrip("\n").split("\n")
    shown = [
        line if len(line) <= _STDERR_LINE_CHARS else line[:_STDERR_LINE_CHARS] + "…"
        for line in lines[-_STDERR_LINES:]
    ]
    head = (
        [f"  stderr (last {len(shown)} of {len(lines)} lines):"]
        if len(lines) > len(shown)
        else ["  stderr:"]
    )
    return head + ["  | " + line for line in shown]


def describe_failure(case: CaseResult) -> str:
    """How a case that did not pass reads on the terminal ("" for one that is fine)."""
    if case.verdict in ("fail", "equivalent-diff"):
        failed = [s for s in case.steps if s.verdict in ("fail", "equivalent-diff")]
        text = "\n\n".join(describe_step(case, step) for step in failed)
        if case.stderr.strip():
            text += "\n" + "\n".join(_stderr_tail(case.stderr))
    elif case.verdict in ("error", "timeout", "crash"):
        lines = [
            f"{case.verdict.upper()} {case.name}: {case.message}",
            f"  rules: {', '.join(case.rules) or '(none)'}",
        ]
        if case.stderr.strip():
            lines.extend(_stderr_tail(case.stderr))
        text = "\n".join(lines)
    elif case.verdict == "unexpected-pass":
        text = f"UNEXPECTED PASS {case.name}: {case.message}"
    else:
        return ""
    # The messages and the stderr are the implementation's words: no control reaches the terminal.
    return visible_controls(text)


def summary_line(totals: Mapping[str, int], duration: float | None = None) -> str:
    """`N passed, N failed`, then the other counts that are not zero."""
    parts = [f"{totals.get('pass', 0)} passed", f"{totals.get('fail', 0)} failed"]
    for verdict, (one, many) in _PLURALS.items():
        count = totals.get(verdict, 0)
        if count:
            parts.append(f"{count} {one if count == 1 else many}")
    line = ", ".join(parts)
    return f"{line} in {duration:.2f} s" if duration is not None else line


def rule_summary(cases: Sequence[CaseResult]) -> str:
    """The rule anchors with cases that did not pass, those with the most failing cases first,
    each with its counts; a rule whose only such cases passed though listed as expected
    failures says so, not FAIL. Then one line for the rules whose every case passed (the HTML
    report lists them)."""
    counts: dict[str, list[int]] = {}  # anchor -> [failing, passing unexpectedly, all]
    for case in cases:
        for rule in case.rules or ("(no rule)",):
            count = counts.setdefault(rule, [0, 0, 0])
            count[0] += case.verdict not in OK_VERDICTS and case.verdict != "unexpected-pass"
            count[1] += case.verdict == "unexpected-pass"
            count[2] += 1
    shown = sorted(
        (r for r in counts if counts[r][0] or counts[r][1]),
        key=lambda r: (-counts[r][0], -counts[r][1], r),
    )
    if not shown:
        return ""  # the line of counts says it all
    labels = {r: "FAIL" if counts[r][0] else "UNEXPECTED PASS" for r in shown}
    label_width = max(len(label) for label in labels.values())
    width = max(len(rule) for rule in shown)
    lines = [f"per rule: {_plural(len(shown), 'rule')} with cases not passing"]
    for rule in shown:
        failing, unexpected, total = counts[rule]
        if failing:
            text = f"{failing} of {_plural(total, 'case')}"
            if unexpected:
                text += f", and {unexpected} passing though listed as expected failures"
        else:
            text = (
                f"{unexpected} of {_plural(total, 'case')} passing though listed as expected "
                "failures: take them off the list"
            )
        lines.append(f"  {labels[rule].ljust(label_width)} {rule.ljust(width)}  {text}")
    passing = len(counts) - len(shown)
    if passing:
        other = "the one other rule" if passing == 1 else f"the other {passing:,} rules"
        lines.append(f"  {'ok'.ljust(label_width)} every case of {other}")
    return "\n".join(lines)


def describe_decision_group(group: DecisionGroup) -> str:
    """The heading of the failures of a decision read the other way: the two readings."""
    decision = group.decision
    count = len(group.cases)
    answered = "its one case answers" if count == 1 else f"all {count:,} of its cases answer"
    return "\n".join(
        [
            f"reads decision {decision.anchor} differently: {decision.question} "
            f"({answered} as the other reading does)",
            f"  this version:  {decision.reading}",
            f"  other reading: {decision.other}",
        ]
    )


def describe_other_failures(count: int) -> str:
    """The heading of the failures that no decision read the other way explains."""
    return f"failures not explained by a decision ({_plural(count, 'case')}):"


def report_failures(cases: Sequence[CaseResult], groups: Sequence[DecisionGroup] = ()) -> str:
    """The failures of a run, one block each: first those of each decision read the other way
    (`decision_groups`), under the decision and its two readings; then, under a heading of
    their own when there were such decisions, the others in case order."""
    blocks: list[str] = []
    shown: set[str] = set()
    for group in groups:
        blocks.append(describe_decision_group(group))
        for case in cases:
            if case.name in group.cases and case.name not in shown:
                shown.add(case.name)
                blocks.append(describe_failure(case))
    rest = [text for case in cases if case.name not in shown and (text := describe_failure(case))]
    if blocks and rest:
        blocks.append(describe_other_failures(len(rest)))
    return "\n\n".join(blocks + rest)


class Progress:
    """On a terminal, a progress line rewritten in place; elsewhere (a CI log), a line now and
    then (every `every` seconds), so that a slow run is not silent."""

    def __init__(
        self,
        stream: TextIO,
        total: int,
        *,
        enabled: bool,
        every: float = PROGRESS_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._total = total
        self._enabled = enabled
        self._every = every
        self._clock = clock
        self._last_line = clock()
        self._done = 0
        self._bad = 0
        self._width = 0

    def update(self, case: CaseResult) -> None:
        self._done += 1
        self._bad += not case.ok
        if not self._enabled:
            now = self._clock()
            if now - self._last_line >= self._every and self._done < self._total:
                self._last_line = now
                of = _plural(self._total, "case")
                self._stream.write(f"{self._done} of {of}, {self._bad} not passing\n")
                self._stream.flush()
            return
        name = visible_controls(case.name, also="\n")
        text = f"[{self._done}/{self._total}] {self._bad} not passing  {name}"
        self._stream.write("\r" + text + "\x1b[K")
        self._stream.flush()
        self._width = len(text)

    def clear(self) -> None:
        if self._enabled and self._width:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._width = 0
