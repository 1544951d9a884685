"""The decisions an implementation read the other way, named on evidence, and their cases.

A decision is a point the spec's source left open (a Decisions-table row). A run names one only
when the implementation's answers are what the other reading produces: every case of the
decision in the run failed on its texts, and at every step of each case the text received is
the one the reference answers with the decision read the other way
(`ctxconf.reference.answers_read_otherwise`) where the two readings differ, and passes where
they agree. An error answer, a step not answered, or any text the other reading would not write
is no evidence: such a case fails for a reason of its own, and so stands with the other
failures, whatever decision it is tagged with.

Nor is a decision named where the rule it refines does not work: the implementation must also
pass some case of that parent rule, of no decision, where the two readings agree, at every step
of the kinds where the decision's readings part (`base_behaviour_works`: its `output` steps for
a decision about listings; a fault in another kind of step, a compaction's table, is another
rule's). An implementation with no deduplication at all answers a case of
`ctx.same.args-any-order` as the members-as-written reading does, by accident; it passes no
repeated listing of `ctx.same.args`. A decision's parent rules are those every one of its cases
names beside it, decisions aside; a decision whose cases share none is judged on its own cases
alone.

`read_otherwise` finds them once a run is over (the results file's footer keeps them); `groups`
pairs them with the two readings of the spec's Decisions table for the console and the report.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxconf.reference import READINGS, answers_read_otherwise
from ctxconf.spectext.decisions import Decision

from .cases import Case
from .results import CaseResult, ReadOtherwise, StepResult


@dataclass(frozen=True)
class DecisionGroup:
    decision: Decision
    cases: tuple[str, ...]  # the run's cases of the decision, all failing, in run order


def answers_as_the_other_reading(steps: Sequence[StepResult], other: Sequence[str]) -> bool:
    """Whether a case's steps, as received and judged, are what the other reading answers:
    its text wherever it differs from this version's, a passing step wherever it does not.
    Steps past those the other reading answers (it cannot take them) are not looked at; at
    least one step must be one where the readings differ."""
    if not other or len(other) > len(steps):
        return False
    differs = False
    for step, text in zip(steps, other, strict=False):
        if text == step.expected:
            if step.verdict not in ("pass", "equivalent-diff"):
                return False
        elif step.actual != text:
            return False
        else:
            differs = True
    return differs


def parent_rules(anchor: str, cases: Sequence[Case]) -> frozenset[str]:
    """The rules decision `anchor` refines: those every one of its `cases` names beside it,
    decisions aside."""
    if not cases:
        return frozenset()
    common = set.intersection(*(set(case.rules) for case in cases))
    return frozenset(common - {anchor} - set(READINGS))


def _parting_ops(anchor: str, cases: Sequence[Case], loop: Mapping[str, Any]) -> set[str]:
    """The kinds of step (ops) at which the decision's own cases part between the readings."""
    ops = set()
    for case in cases:
        other = answers_read_otherwise(anchor, case.area, case.data, loop) or []
        ops |= {
            str(step.get("op"))
            for step, text, expected in zip(case.steps, other, case.expect, strict=False)
            if text != expected
        }
    return ops


def _passes_at(result: CaseResult, ops: set[str]) -> bool:
    """Whether every step of a kind in `ops` passed, and there is one."""
    steps = [step for step in result.steps if str(step.step.get("op")) in ops]
    return bool(steps) and all(step.verdict in ("pass", "equivalent-diff") for step in steps)


def base_behaviour_works(
    anchor: str,
    cases: Sequence[Case],
    judged: Mapping[tuple[str, str], CaseResult],
    loop: Mapping[str, Any],
) -> bool:
    """Whether the rule decision `anchor` refines works: in some case of its parent rules where
    the two readings agree (the other reading answers what this version expects), the
    implementation passed every step of the kinds where the decision's own cases part. True for
    a decision with no parent rule. A case of any decision shows no base behaviour (a case of
    numbers told apart is passed by never deduplicating), nor does a case the run did not send."""
    mine = [case for case in cases if anchor in case.rules]
    parents = parent_rules(anchor, mine)
    if not parents:
        return True
    ops = _parting_ops(anchor, mine, loop)
    for case in cases:
        if set(case.rules) & set(READINGS) or not parents & set(case.rules):
            continue
        result = judged.get((case.file, case.name))
        if result is None or not _passes_at(result, ops):
            continue
        other = answers_read_otherwise(anchor, case.area, case.data, loop)
        if other is not None and list(other) == list(case.expect):
            return True
    return False


def read_otherwise(
    cases: Sequence[Case], results: Iterable[CaseResult], loop: Mapping[str, Any]
) -> tuple[ReadOtherwise, ...]:
    """The decisions of the run's `cases` that `results` read the other way, on evidence; a
    decision with a case not in `results` (an interrupted run) is not named."""
    judged = {(result.file, result.name): result for result in results}
    found = []
    for anchor in sorted({rule for case in cases for rule in case.rules} & set(READINGS)):
        mine = [case for case in cases if anchor in case.rules]
        received = [judged.get((case.file, case.name)) for case in mine]
        if not all(result is not None and result.verdict == "fail" for result in received):
            continue  # a decision read otherwise fails every one of its cases on its texts
        if all(
            result is not None
            and (other := answers_read_otherwise(anchor, case.area, case.data, loop)) is not None
            and answers_as_the_other_reading(result.steps, other)
            for case, result in zip(mine, received, strict=True)
        ) and base_behaviour_works(anchor, cases, judged, loop):
            found.append(ReadOtherwise(anchor, tuple(case.name for case in mine)))
    return tuple(found)


def groups(
    found: Iterable[ReadOtherwise], decisions: Mapping[str, Decision]
) -> list[DecisionGroup]:
    """The decisions read otherwise, each with its row of the spec's Decisions table (one the
    table no longer has is left out: there are no two readings to show)."""
    return [
        DecisionGroup(decisions[item.decision], item.cases)
        for item in found
        if item.decision in decisions
    ]


def grouped_names(found: Iterable[DecisionGroup]) -> set[str]:
    return {name for group in found for name in group.cases}
