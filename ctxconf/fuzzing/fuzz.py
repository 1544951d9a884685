"""Differential fuzzing: random sessions run on an implementation and on the reference.

`fuzz` draws sessions of an area (`context` by default, or `prefix`) from
`ctxconf.fuzzing.strategies.sessions_of`, runs each on the implementation and on
the reference, and raises inside the Hypothesis test on the first disagreement, so Hypothesis
shrinks the session to a minimal one that still disagrees. An implementation that fails a
session (crashes, hangs, answers with an error or a broken message) disagrees too.

A finding becomes a case file (`finding_document`): one case, its expected texts from the
reference, its rules guessed from the step that differs, ready for review and for the suite.

The command around it is `ctxconf.fuzzing.command`; the implementation under test is reached
through `ctxconf.fuzzing.implementation`.
"""

from __future__ import annotations

import hashlib
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException, HypothesisWarning

from ctxconf.fuzzing.findings import (
    RULES_GUESSED,
    case_name,
    describe_finding,
    document_text,
    finding_document,
    guess_rules,
    write_document,
)
from ctxconf.fuzzing.model import (
    AREA,
    DEFAULT_EXAMPLES,
    Case,
    Finding,
    FuzzOptions,
    FuzzOutcome,
    SessionFailed,
    SessionRunner,
)
from ctxconf.fuzzing.own_constants import own_constants_only
from ctxconf.fuzzing.strategies import area_fuzz, sessions_of
from ctxconf.reference import REGISTRY

# Sessions per Hypothesis run: a run keeps a record of every session it drew (so it never draws
# one twice), which grows without end over a long --max-time; each batch starts afresh.
BATCH = DEFAULT_EXAMPLES


class _Disagreement(Exception):
    """Raised inside the Hypothesis test so that it shrinks the session."""


class _TimeUp(BaseException):
    """Raised inside the Hypothesis test when --max-time is up. Not an Exception, so Hypothesis
    does not take it for a failure to shrink: like KeyboardInterrupt, it ends the run."""


# -- the search --------------------------------------------------------------------------------


@dataclass
class _Progress:
    examples: int = 0
    shrink_runs: int = 0
    timed_out: bool = False
    finding: Finding | None = None


def reference_outputs(area: str, case: Case, config: Any) -> list[str]:
    """The reference's texts for `case`, a case of `area` whose config is `config`."""
    return REGISTRY[area].run(case, config)


def differing_steps(
    case: Case,
    expected: Sequence[str],
    actual: Sequence[str],
    config: Any,
    *,
    accept_equivalent_diffs: bool = False,
    area: str = AREA,
) -> tuple[int, ...]:
    """The steps whose actual text is not the expected one (nor, when accepted, an equivalent
    one, judged as `ctxconf run --accept-equivalent-diffs` judges it)."""
    equivalent = REGISTRY[area].equivalent if accept_equivalent_diffs else None
    differing = []
    for index, (step, want, have) in enumerate(zip(case["steps"], expected, actual, strict=True)):
        if want == have:
            continue
        if equivalent is not None and equivalent(config, step, want, have):
            continue
        differing.append(index)
    return tuple(differing)


def compare(
    case: Case,
    implementation: SessionRunner,
    config: Any,  # the area's config
    *,
    accept_equivalent_diffs: bool = False,
    area: str = AREA,
) -> Finding | None:
    """Run `case` on both sides; a Finding when they disagree."""
    expected = tuple(reference_outputs(area, case, config))
    try:
        actual = tuple(implementation(case))
    except SessionFailed as failure:
        return Finding(case, expected, None, (), failure.message, failure.stderr, area)
    differing = differing_steps(
        case, expected, actual, config, accept_equivalent_diffs=accept_equivalent_diffs, area=area
    )
    return Finding(case, expected, actual, differing, area=area) if differing else None


def fuzz(
    implementation: SessionRunner,
    options: FuzzOptions,
    config: Any,  # the area's config
    *,
    clock: Callable[[], float] = time.monotonic,
) -> FuzzOutcome:
    """Search for a session on which `implementation` departs from the reference, and shrink it."""
    started = clock()
    deadline = None if options.max_time is None else started + options.max_time
    progress = _Progress()

    def check(case: Case) -> Finding | None:
        return compare(
            case,
            implementation,
            config,
            accept_equivalent_diffs=options.accept_equivalent_diffs,
            area=options.area,
        )

    strategy = sessions_of(options.area, options.ops)
    left = options.examples
    batch = 0
    while left > 0 and progress.finding is None and not progress.timed_out:
        size = min(BATCH, left)
        _search_batch(
            strategy, size, batch_seed(options.seed, batch), check, progress, deadline, clock
        )
        left -= size
        batch += 1
    if progress.finding is not None:
        progress.finding = _polish(progress, check, deadline, clock)
    return FuzzOutcome(
        seed=options.seed,
        examples=progress.examples,
        shrink_runs=progress.shrink_runs,
        elapsed=clock() - started,
        timed_out=progress.timed_out,
        finding=progress.finding,
    )


def batch_seed(seed: int, batch: int) -> int:
    """The seed of a run's `batch`-th batch: the run's own for the first, so that a run of at
    most one batch draws what a single Hypothesis run with that seed draws."""
    if batch == 0:
        return seed
    digest = hashlib.sha256(f"{seed}/{batch}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def _search_batch(
    strategy: st.SearchStrategy[Case],
    size: int,
    seed: int,
    check: Callable[[Case], Finding | None],
    progress: _Progress,
    deadline: float | None,
    clock: Callable[[], float],
) -> None:
    """Up to `size` sessions in one Hypothesis run, shrinking the first that disagrees."""

    @hypothesis_seed(seed)
    @settings(
        max_examples=size,
        database=None,
        derandomize=False,
        deadline=None,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
        verbosity=Verbosity.quiet,
    )
    @given(strategy)
    def probe(case: Case) -> None:
        if deadline is not None and clock() >= deadline:
            progress.timed_out = True
            raise _TimeUp
        if progress.finding is None:
            progress.examples += 1
        else:
            progress.shrink_runs += 1
        finding = check(case)
        if finding is not None:
            # Shrinking only ever runs smaller sessions, so the last one that failed is the
            # smallest found.
            progress.finding = finding
            raise _Disagreement

    try:
        with warnings.catch_warnings(), own_constants_only():
            # Hypothesis warns when it describes a large session; the finding is shown anyway.
            warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)
            probe()
    except (_Disagreement, _TimeUp):
        pass
    except HypothesisException:
        # A nondeterministic implementation can make Hypothesis call the failure flaky; the
        # smallest failing session seen is still a finding.
        if progress.finding is None:
            raise


def _polish(
    progress: _Progress,
    check: Callable[[Case], Finding | None],
    deadline: float | None,
    clock: Callable[[], float],
) -> Finding:
    """Greedily simplify Hypothesis's smallest session while it still disagrees.

    Hypothesis deletes steps through the choices that generated them; a step whose meaning
    depends on an earlier one (a re-read that shows the content a first read drew) can resist
    that. Leaving steps out of the session itself gets past it.
    """
    assert progress.finding is not None
    finding = progress.finding
    improved = True
    while improved:
        improved = False
        for candidate in area_fuzz(finding.area).smaller(finding.case):
            if deadline is not None and clock() >= deadline:
                progress.timed_out = True
                return finding
            progress.shrink_runs += 1
            try:
                smaller = check(candidate)
            except (KeyError, TypeError, ValueError):
                continue  # the reference refuses it: not a valid session
            if smaller is not None:
                finding, improved = smaller, True
                break
    return finding


__all__ = [
    "AREA",
    "BATCH",
    "RULES_GUESSED",
    "Finding",
    "FuzzOptions",
    "FuzzOutcome",
    "SessionFailed",
    "batch_seed",
    "case_name",
    "compare",
    "describe_finding",
    "differing_steps",
    "document_text",
    "finding_document",
    "fuzz",
    "guess_rules",
    "reference_outputs",
    "write_document",
]
