"""What changed between two runs, case by case (by area and name), from their results documents.

The comparison is of what the implementation did, not of how a run judged it: a case fails when
its texts or the implementation's answers were wrong (`FAILED`), listed as an expected failure
or not, and an unexpected pass is a case that passed. So a case listed as an expected failure
that starts passing is newly passing, and one still failing as expected is still failing. A case
in only one of the two runs is listed as added or removed, whatever its verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Case verdicts that make a run fail (the runner's exit code 1).
FAILING = frozenset({"fail", "equivalent-diff", "error", "timeout", "crash", "unexpected-pass"})
# Case verdicts of an implementation that did not pass the case, expected to or not.
FAILED = (FAILING - {"unexpected-pass"}) | {"expected-failure"}


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


def _text(value: object) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _verdicts(doc: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for case in doc.get("cases") or []:
        if isinstance(case, Mapping):
            found.setdefault(
                (_text(case.get("area")), _text(case.get("name"))), _text(case.get("verdict"))
            )
    return found


def compare_results(
    earlier: Mapping[str, Any], later: Mapping[str, Any], label: str = ""
) -> Comparison:
    """What changed from an earlier run to a later one, case by case (by area and name)."""
    before, after = _verdicts(earlier), _verdicts(later)
    newly_failing, newly_passing, still_failing, added, removed = [], [], [], [], []
    for key, verdict in after.items():
        change = CaseChange(key[0], key[1], before.get(key), verdict)
        if key not in before:
            added.append(change)
        elif verdict in FAILED and before[key] in FAILED:
            still_failing.append(change)
        elif verdict in FAILED:
            newly_failing.append(change)
        elif before[key] in FAILED:
            newly_passing.append(change)
    for key, verdict in before.items():
        if key not in after:
            removed.append(CaseChange(key[0], key[1], verdict, None))
    return Comparison(label, newly_failing, newly_passing, still_failing, added, removed)


def format_comparison(comparison: Comparison) -> str:
    """The comparison as plain text lines, for the terminal."""
    lines = [f"compared with {comparison.earlier}:" if comparison.earlier else "compared:"]
    for title, changes in comparison_lists(comparison):
        lines.append(f"  {title}: {len(changes)}")
        for change in changes:
            lines.append(f"    {change.key}  ({change.before or '-'} -> {change.after or '-'})")
    return "\n".join(lines)


def comparison_lists(comparison: Comparison) -> list[tuple[str, list[CaseChange]]]:
    return [
        ("newly failing", comparison.newly_failing),
        ("newly passing", comparison.newly_passing),
        ("still failing", comparison.still_failing),
        ("added", comparison.added),
        ("removed", comparison.removed),
    ]
