"""What a run shows on the terminal: a live progress line, the failures, and one line of counts.

Differences in whitespace are the usual cause of a failing case, so the diffs show it: `·` for
a space at the end of a line, `→` for a tab, `␍` for a carriage return, and on changed lines `⏎`
where the line ends (a missing final newline shows as a line without it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TextIO

from ctxconf import textdiff

from .results import CaseResult, StepResult

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


def visible_diff(expected: str, actual: str, context: int = 3) -> str:
    """A unified diff of expected vs actual text, whitespace visible ("" when equal)."""
    return "\n".join(textdiff.visible_diff(expected, actual, context=context))


def _step_input(step: Mapping[str, object], limit: int = 300) -> str:
    text = json.dumps(dict(step), ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
    diff = visible_diff(step.expected, step.actual or "")
    lines.extend("  " + line for line in diff.split("\n"))
    return "\n".join(lines)


def _stderr_tail(stderr: str) -> list[str]:
    lines = stderr.rstrip("\n").split("\n")
    shown = lines[-_STDERR_LINES:]
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
    elif case.verdict in ("error", "timeout", "crash"):
        lines = [
            f"{case.verdict.upper()} {case.name}: {case.message}",
            f"  rules: {', '.join(case.rules) or '(none)'}",
        ]
        if case.stderr.strip():
            lines.extend(_stderr_tail(case.stderr))
        text = "\n".join(lines)
    elif case.verdict == "unexpected-pass":
        text = (
            f"UNEXPECTED PASS {case.name}: listed as an expected failure ({case.message}), "
            "but it passed: remove it from the list"
        )
    else:
        return ""
    return text


def summary_line(totals: Mapping[str, int], duration: float | None = None) -> str:
    """`N passed, N failed`, then the other counts that are not zero."""
    parts = [f"{totals.get('pass', 0)} passed", f"{totals.get('fail', 0)} failed"]
    for verdict, (one, many) in _PLURALS.items():
        count = totals.get(verdict, 0)
        if count:
            parts.append(f"{count} {one if count == 1 else many}")
    line = ", ".join(parts)
    return f"{line} in {duration:.2f} s" if duration is not None else line


def report_failures(cases: Sequence[CaseResult]) -> str:
    """The failures of a run, one block each, in case order."""
    blocks = [text for case in cases if (text := describe_failure(case))]
    return "\n\n".join(blocks)


class Progress:
    """A progress line rewritten in place, on a terminal only."""

    def __init__(self, stream: TextIO, total: int, *, enabled: bool) -> None:
        self._stream = stream
        self._total = total
        self._enabled = enabled
        self._done = 0
        self._bad = 0
        self._width = 0

    def update(self, case: CaseResult) -> None:
        self._done += 1
        self._bad += not case.ok
        if not self._enabled:
            return
        text = f"[{self._done}/{self._total}] {self._bad} not passing  {case.name}"
        self._stream.write("\r" + text + "\x1b[K")
        self._stream.flush()
        self._width = len(text)

    def clear(self) -> None:
        if self._enabled and self._width:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
