"""How a case's answers become verdicts: per step, per case, and against --expected-failures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ctxconf.reference import REGISTRY

from .cases import Case
from .expected_failures import NONE, ExpectedFailures
from .results import CaseResult, CaseVerdict, ExpectedFailureEntry, StepResult, StepVerdict


@dataclass(frozen=True)
class Judge:
    """What the verdicts depend on besides the answers themselves."""

    accept_equivalent_diffs: bool = False
    expected_failures: ExpectedFailures = NONE
    # Each area's config, read once from the spec's loop.json, for its step equivalence.
    configs: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def for_spec(
        cls,
        spec_dir: Path,
        *,
        accept_equivalent_diffs: bool = False,
        expected_failures: ExpectedFailures = NONE,
    ) -> Judge:
        """A judge using the spec's `loop.json` (refused with its place, SpecFileError, exit 2)."""
        from ctxconf.specdata.reader import read_loop

        return cls.for_loop(
            read_loop(spec_dir),
            accept_equivalent_diffs=accept_equivalent_diffs,
            expected_failures=expected_failures,
        )

    @classmethod
    def for_loop(
        cls,
        loop: Mapping[str, Any],
        *,
        accept_equivalent_diffs: bool = False,
        expected_failures: ExpectedFailures = NONE,
    ) -> Judge:
        """A judge using the numbers and texts of a `loop.json` already read."""
        configs = {name: area.config(loop) for name, area in REGISTRY.items() if area.equivalent}
        return cls(accept_equivalent_diffs, expected_failures, configs)

    def _equivalent(self, case: Case, index: int, actual: str) -> bool:
        area = REGISTRY.get(case.area)
        if area is None or area.equivalent is None or case.area not in self.configs:
            return False
        config = self.configs[case.area]
        return area.equivalent(config, case.steps[index], case.expect[index], actual)

    def step(
        self, case: Case, index: int, actual: str | None, error: str | None = None
    ) -> StepResult:
        step, expected = case.steps[index], case.expect[index]
        verdict: StepVerdict
        if error is not None:  # the implementation could not do this step: it fails alone
            return StepResult(
                index, step, expected, None, "fail", f"the implementation answered: {error}"
            )
        if actual is None:
            verdict = "not-run"
        elif actual == expected:
            verdict = "pass"
        elif self._equivalent(case, index, actual):
            verdict = "equivalent-diff"
        else:
            verdict = "fail"
        return StepResult(index, step, expected, actual, verdict)

    def steps(
        self,
        case: Case,
        outputs: Sequence[object] | None,
        step_errors: Mapping[int, str] | None = None,
    ) -> tuple[StepResult, ...]:
        """Every step, with the output received for it (None: not received, not judged)."""
        received = [text if isinstance(text, str) else None for text in outputs or []]
        received += [None] * (len(case.steps) - len(received))
        errors = step_errors or {}
        return tuple(
            self.step(case, index, received[index], errors.get(index))
            for index in range(len(case.steps))
        )

    def answered(
        self, case: Case, outputs: Sequence[str], step_errors: Mapping[int, str] | None = None
    ) -> tuple[CaseVerdict, tuple[StepResult, ...]]:
        """The verdict of a case the implementation answered with one output per step."""
        steps = self.steps(case, outputs, step_errors)
        verdicts = {step.verdict for step in steps}
        if "fail" in verdicts:
            return "fail", steps
        if "equivalent-diff" in verdicts and not self.accept_equivalent_diffs:
            return "equivalent-diff", steps
        return "pass", steps

    def settle(self, result: CaseResult) -> CaseResult:
        """Apply --expected-failures: a listed case failing was expected, and keeps its own
        message; one passing was not, unless its rule-anchor entry says strict: false."""
        entry = self.expected_failures.match(result.name, result.rules)
        if entry is None or result.verdict == "skipped":
            return result
        if result.verdict != "pass":
            return replace(result, verdict="expected-failure", expected_failure=entry)
        if not entry.strict:
            return replace(result, expected_failure=entry)
        return replace(
            result,
            verdict="unexpected-pass",
            message=self._unexpected_pass(result.name, entry),
            expected_failure=entry,
        )

    def _unexpected_pass(self, name: str, entry: ExpectedFailureEntry) -> str:
        failures = self.expected_failures
        line = failures.lines.get(entry.entry)
        where = f"{failures.path}:{line}" if failures.path and line else "the expected failures"
        if entry.entry == name:
            return (
                f"listed as an expected failure ({where}: {entry.reason}), but it passed: "
                "take it off the list"
            )
        return (
            f"listed as an expected failure under {entry.entry!r} ({where}: {entry.reason}), "
            f"but it passed: remove the entry, or narrow it to the names of the cases that "
            "still fail (or give it strict: false)"
        )
