"""The tool list check: every request of a session offers the same tools, each the same whole
definition (name, description, input schema), in the same order; a change is named."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from ctxconf.shapes.wire import Tool

from ..harness import ProbeRun
from .changes import eras
from .model import CheckDef, CheckResult, Sent, _count, _result

QUOTE_CHARS = 60


def _quote_change(before: str, after: str) -> str:
    """Where two texts part, each quoted from a little before that point."""
    same = next((i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b), None)
    start = max(0, (min(len(before), len(after)) if same is None else same) - 20)
    lead = "…" if start else ""
    return f"{lead}{before[start:][:QUOTE_CHARS]!r} → {lead}{after[start:][:QUOTE_CHARS]!r}"


def _schema_difference(before: Any, after: Any, pointer: str = "") -> str:
    """The JSON pointer of the first place two schemas differ ("" for the whole)."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        for key in sorted(set(before) | set(after)):
            if key not in before or key not in after or before[key] != after[key]:
                if key in before and key in after:
                    return _schema_difference(before[key], after[key], f"{pointer}/{key}")
                return f"{pointer}/{key}"
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (b, a) in enumerate(zip(before, after, strict=True)):
            if b != a:
                return _schema_difference(b, a, f"{pointer}/{index}")
    return pointer


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:6])
    return shown + (f" and {len(names) - 6} more" if len(names) > 6 else "")


def tool_change(before: Sequence[Tool], after: Sequence[Tool]) -> tuple[str, str] | None:
    """What changed from one tool list to the next: (what, how), or None when nothing did."""
    old, new = [t.name for t in before], [t.name for t in after]
    if old != new:
        added = [n for n in new if n not in old]
        removed = [n for n in old if n not in new]
        words = [f"{_names(added)} added"] if added else []
        words += [f"{_names(removed)} removed"] if removed else []
        if words:
            return "the tool list", "; ".join(words)
        return "the order of the tools", f"{_names(old)} became {_names(new)}"
    for b, a in zip(before, after, strict=True):
        if b.description != a.description:
            return f"the description of `{b.name}`", _quote_change(b.description, a.description)
        if b.schema != a.schema:
            where = _schema_difference(b.schema, a.schema) or "/"
            text = json.dumps(a.schema, sort_keys=True)[:QUOTE_CHARS]
            return f"the input schema of `{b.name}`", f"at {where}, now {text!r}"
    return None


def tools_fixed(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    # Made again only where the scenario lets it be: a compaction, a model switch.
    stretches = [
        era
        for session, sent in zip(run.sessions, sessions, strict=False)
        for era in eras(run, session, sent)
    ]
    lists = [sorted({s.request.canonical_tools() for s in era}) for era in stretches]
    names = [[t.name for t in era[0].request.tools] for era in stretches if era]
    counts = [len(x) for x in lists]
    figures: dict[str, Any] = {"tool_lists_per_session": counts, "tools": names[0]}
    changes = []
    for era in stretches:
        for before, after in pairwise(era):
            change = tool_change(before.request.tools, after.request.tools)
            if change:
                what, how = change
                changes.append({"request": after.n, "what": what, "how": how})
    if not changes:
        return _result(
            check, "pass", f"one tool list per session ({_count(len(names[0]), 'tool')})", **figures
        )
    first = changes[0]
    return _result(
        check,
        "fail",
        f"{first['what']} changed on request {first['request']}: {first['how']}"
        f" ({max(counts)} different tool lists in one session)",
        changes=changes[:10],
        **figures,
    )


__all__ = ["tool_change", "tools_fixed"]
