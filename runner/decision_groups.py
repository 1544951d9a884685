"""Failing cases grouped by the decision an implementation read differently.

A decision's cases test it and little else, so when every case of a decision in a run fails, the
likeliest cause is one point read the other way, not many faults: the report and the console
name the decision, with this version's reading beside the other one, above those cases.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ctxconf.spectext.decisions import Decision


@dataclass(frozen=True)
class DecisionGroup:
    decision: Decision
    cases: tuple[str, ...]  # the run's cases of the decision, all failing, in run order


def decision_groups(
    cases: Iterable[tuple[str, Sequence[str], bool]], decisions: Mapping[str, Decision]
) -> list[DecisionGroup]:
    """The decisions whose every case in the run failed: `cases` are (name, rules, failed)."""
    listed = list(cases)
    groups = []
    for anchor, decision in decisions.items():
        mine = [(name, failed) for name, rules, failed in listed if anchor in rules]
        if mine and all(failed for _, failed in mine):
            groups.append(DecisionGroup(decision, tuple(name for name, _ in mine)))
    return groups


def grouped_names(groups: Iterable[DecisionGroup]) -> set[str]:
    return {name for group in groups for name in group.cases}
