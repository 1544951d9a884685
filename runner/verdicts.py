"""How a case's answers become verdicts: per step, per case, and against --expected-failures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from . import equivalent_diff
from .cases import Case
from .expected_failures import NONE, ExpectedFailures
from .results import CaseResult, CaseVerdict, StepResult, StepVerdict


@dataclass(frozen=True)
class Judge:
    """What the verdicts depend on besides the answers themselves."""

    accept_equivalent_diffs: bool = False
    diff_context: int = equivalent_diff.DEFAULT_CONTEXT
    no_newline: str = equivalent_diff.NO_NEWLINE
    expected_failures: ExpectedFailures = NONE

    @classmethod
    def for_spec(
        cls,
        spec_dir: Path,
        *,
        accept_equivalent_diffs: bool = False,
        expected_failures: ExpectedFailures = NONE,
    ) -> Judge:
        """A judge using the diff context and no-newline marker of the spec's `loop.json`."""
        from ctxconf.reference import ContextConfig

        config = ContextConfig.load(spec_dir)
        return cls(
            accept_equivalent_diffs,
            config.diff_context,
            config.texts.render("no_newline"),
            expected_failures,
        )

    def step(self, case: Case, index: int, actual: str | None) -> StepResult:
        step, expected = case.steps[index], case.expect[index]
        verdict: StepVerdict
        if actual is None:
            verdict = "not-run"
        elif actual == expected:
            verdict = "pass"
        elif case.area == "context" and equivalent_diff.check(  # the area whose edits are diffs
            step, expected, actual, context=self.diff_context, no_newline=self.no_newline
        ).equivalent:
            verdict = "equivalent-diff"
        else:
            verdict = "fail"
        return StepResult(index, step, expected, actual, verdict)

    def steps(self, case: Case, outputs: Sequence[object] | None) -> tuple[StepResult, ...]:
        """Every step, with the output received for it (None: not received, not judged)."""
        received = [text if isinstance(text, str) else None for text in outputs or []]
        received += [None] * (len(case.steps) - len(received))
        return tuple(self.step(case, index, received[index]) for index in range(len(case.steps)))

    def answered(
        self, case: Case, outputs: Sequence[str]
    ) -> tuple[CaseVerdict, tuple[StepResult, ...]]:
        """The verdict of a case the implementation answered with one output per step."""
        steps = self.steps(case, outputs)
        verdicts = {step.verdict for step in steps}
        if "fail" in verdicts:
            return "fail", steps
        if "equivalent-diff" in verdicts and not self.accept_equivalent_diffs:
            return "equivalent-diff", steps
        return "pass", steps

    def settle(self, result: CaseResult) -> CaseResult:
        """Apply --expected-failures: a listed case failing was expected; one passing was not."""
        reason = self.expected_failures.reason_for(result.name, result.rules)
        if reason is None or result.verdict == "skipped":
            return result
        if result.verdict == "pass":
            return replace(result, verdict="unexpected-pass", message=reason)
        return replace(result, verdict="expected-failure", message=reason)
