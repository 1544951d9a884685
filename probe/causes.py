"""A run's causes as the console and the page show them: each thing its scenario meant that
the run did not do (a shortfall: a turn that sent no request, a kill that missed), once and
numbered; each check it left without a verdict refers to it by number; and a count that tells
the checks that failed from those that could not be judged.

One mistake (a harness that exits at once, or never calls the mock) is one cause however many
checks it leaves unjudged: "1 cause, 10 checks could not be judged", not "10 checks failed".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

FAILING = frozenset({"fail", "error"})
_SESSION = re.compile(r"(session \d+: )?(.*)", re.DOTALL)


def causes_of(check: Mapping[str, Any]) -> list[int]:
    """The numbers (from 1, in the results' `shortfalls`) of what kept `check` from a verdict;
    none for a check that was judged."""
    if check.get("verdict") != "error":
        return []
    causes = (check.get("figures") or {}).get("causes") or []
    return [int(n) for n in causes]


def head(reason: str) -> str:
    """A shortfall's reason up to its detail: `turn 1 sent no request`."""
    found = _SESSION.fullmatch(reason)
    where, rest = (found.group(1) or "", found.group(2)) if found else ("", reason)
    return where + rest.split(": ", 1)[0]


def cause_lines(data: Mapping[str, Any]) -> list[str]:
    """Each shortfall of a results file, numbered, with its whole reason."""
    return [f"[{n}] {s['reason']}" for n, s in enumerate(data.get("shortfalls") or [], 1)]


def check_summary(check: Mapping[str, Any], shortfalls: Sequence[Mapping[str, Any]]) -> str:
    """A check's line: its summary, or, when a shortfall kept it from a verdict, which."""
    causes = [n for n in causes_of(check) if 0 < n <= len(shortfalls)]
    if not causes:
        return str(check.get("summary", ""))
    said = "; ".join(f"[{n}] {head(str(shortfalls[n - 1]['reason']))}" for n in causes)
    return f"could not be judged: {said}"


def _checks(count: int) -> str:
    return f"{count} check" if count == 1 else f"{count} checks"


def count_line(checks: Sequence[Mapping[str, Any]]) -> str:
    """`2 checks failed`, `1 cause, 10 checks could not be judged`, or both."""
    unjudged = [c for c in checks if causes_of(c)]
    failed = sum(1 for c in checks if c.get("verdict") in FAILING and not causes_of(c))
    if not unjudged:
        return f"{_checks(failed)} failed"
    causes = len({n for c in unjudged for n in causes_of(c)})
    could_not = f"{causes} cause{'' if causes == 1 else 's'}, {_checks(len(unjudged))} could not"
    could_not += " be judged"
    return f"{_checks(failed)} failed; {could_not}" if failed else could_not


__all__ = ["cause_lines", "causes_of", "check_summary", "count_line", "head"]
