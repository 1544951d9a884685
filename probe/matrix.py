"""The harness-by-check matrix as data: one row per harness and version, a cell per check, the
cache figures per scenario; its file (format `ctxconf-probe-matrix` 1) and what changed in it
since an earlier one. The pages render it (`pages.py`); nothing here is HTML or markdown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ctxconf import __version__
from ctxconf.errors import CtxconfError
from ctxconf.userfiles.document import display, parse_json_text, read_text_file

from .cache_view import percent
from .checks import CHECKS
from .errors import ProbeDataError
from .schemas import validate_data
from .tolerance import BETTER, CHANGED, WORSE, Tolerance

FORMAT = "ctxconf-probe-matrix"
FORMAT_VERSION = 1

# When one harness ran several scenarios, a check shows a failure from any of them, else the
# verdict of the scenario made for it, else the verdict that says the most.
RANK = {"fail": 5, "pass": 4, "info": 3, "error": 2, "not-testable": 1}
HOME_SCENARIO = {
    "no-clock": "two-days",
    "date-note": "midnight",
    **dict.fromkeys(("no-half-turn", "cold-equals-live", "truncate"), "crash-mid-call"),
    "instructions-note": "instructions-edited",
    "mcp-tools": "mcp-late",
    **dict.fromkeys(("compact-turn", "compact-after"), "compact"),
}
SYMBOL = {"pass": "✅", "fail": "❌", "info": "🔎", "error": "⚠️", "not-testable": "—"}
FAILING = frozenset({"fail", "error"})
JUDGED = frozenset({"pass", "info"})  # a failing check that became one of these got better


@dataclass(frozen=True)
class Cell:
    verdict: str
    summary: str
    scenario: str


@dataclass(frozen=True)
class Figures:
    """A scenario's cache figures in one row: hit rate, tokens lost to the harness, cost (None:
    no price)."""

    hit_rate: float | None
    lost: int  # tokens lost to the harness (the results' totals' `lost`)
    cost_usd: str | None


@dataclass(frozen=True)
class Row:
    harness: str
    version: str
    api: str
    date: str
    cells: dict[str, Cell]
    cache: dict[str, Figures] = field(default_factory=dict)


@dataclass(frozen=True)
class Change:
    """A cell that differs from the earlier matrix: what it was (a check's verdict, a figure as
    shown), and which way it moved: `better`, `worse`, or only `changed` (a verdict that neither
    started nor stopped failing, a figure that moved within the tolerance)."""

    was: str
    direction: str

    @property
    def worse(self) -> bool:
        return self.direction == WORSE

    @property
    def better(self) -> bool:
        return self.direction == BETTER


@dataclass(frozen=True)
class Comparison:
    """What changed since an earlier matrix, by (harness, version) and column: a check's id, or
    `hit_rate:SCENARIO`, `lost:SCENARIO`, `cost:SCENARIO`; which rows are new or gone; and the
    tolerance the figures were judged with."""

    against: str
    changes: dict[tuple[str, str], dict[str, Change]]
    new_rows: list[tuple[str, str]]
    gone_rows: list[tuple[str, str]]
    tolerance: Tolerance = field(default_factory=Tolerance)

    def of(self, row: Row) -> dict[str, Change]:
        return self.changes.get((row.harness, row.version), {})

    def count(self, direction: str) -> int:
        return sum(
            c.direction == direction for cells in self.changes.values() for c in cells.values()
        )

    @property
    def worse(self) -> int:
        return self.count(WORSE)


def _better(check_id: str, cell: Cell, held: Cell) -> bool:
    if "fail" in (cell.verdict, held.verdict):
        return cell.verdict == "fail" and held.verdict != "fail"
    home = HOME_SCENARIO.get(check_id, "basic")
    cell_home, held_home = (
        c.scenario == home and c.verdict != "not-testable" for c in (cell, held)
    )
    if cell_home != held_home:
        return cell_home
    if cell.verdict == held.verdict:
        return cell.scenario == home  # a not-testable says why in the scenario made for it
    return RANK.get(cell.verdict, 0) > RANK.get(held.verdict, 0)


def _figures(run: dict[str, Any]) -> Figures | None:
    cache = run.get("cache")
    if not cache:
        return None  # a results file written before the cache audit
    if run.get("not_played"):
        return None  # nothing was sent: no figures, not figures of nothing
    totals = cache["totals"]
    # "reread" is the name a file written before losses were counterfactual gives its figure.
    lost = totals.get("lost", totals.get("reread", 0))
    return Figures(totals["hit_rate"], int(lost), totals.get("cost_usd"))


def matrix_rows(runs: Sequence[dict[str, Any]]) -> list[Row]:
    """A row per harness and version (two versions of a harness stand side by side)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for run in runs:
        key = (run["harness"]["name"], run["harness"]["version"] or "unknown")
        groups.setdefault(key, []).append(run)
    rows = []
    for (name, version), group in sorted(groups.items()):
        cells: dict[str, Cell] = {}
        for run in group:
            for check in run["checks"]:
                cell = Cell(check["verdict"], check["summary"], run["scenario"]["name"])
                held = cells.get(check["id"])
                if held is None or _better(check["id"], cell, held):
                    cells[check["id"]] = cell
        cache = {}
        for run in group:
            figures = _figures(run)
            if figures is not None:
                cache[run["scenario"]["name"]] = figures
        dates = sorted({r["started"][:10] for r in group})
        rows.append(Row(name, version, group[0]["harness"]["api"], ", ".join(dates), cells, cache))
    return rows


def columns() -> list[tuple[str, str, str]]:
    return [(c.id, c.anchor, c.title) for c in CHECKS]


def cache_scenarios(rows: Sequence[Row]) -> list[str]:
    """The scenarios whose cache figures the matrix shows, a group of columns each."""
    return sorted({scenario for row in rows for scenario in row.cache})


def to_data(rows: Sequence[Row], made: datetime | None = None) -> dict[str, Any]:
    when = made or datetime.now(timezone.utc)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "ctxconf_version": __version__,
        "made": when.isoformat(timespec="seconds"),
        "rows": [
            {
                "harness": row.harness,
                "version": row.version,
                "api": row.api,
                "date": row.date,
                "cells": {
                    check: {"verdict": c.verdict, "summary": c.summary, "scenario": c.scenario}
                    for check, c in row.cells.items()
                },
                "cache": {
                    scenario: {"hit_rate": f.hit_rate, "lost": f.lost, "cost_usd": f.cost_usd}
                    for scenario, f in row.cache.items()
                },
            }
            for row in rows
        ],
    }


def _row_of(data: dict[str, Any]) -> Row:
    cells = {k: Cell(v["verdict"], v["summary"], v["scenario"]) for k, v in data["cells"].items()}
    cache = {
        k: Figures(v["hit_rate"], v.get("lost", v.get("reread", 0)), v["cost_usd"])
        for k, v in data["cache"].items()
    }
    return Row(data["harness"], data["version"], data["api"], data["date"], cells, cache)


def load(path: Path) -> list[Row]:
    """An earlier matrix file (`ctxconf probe --matrix … --json`), checked against its schema."""
    name = display(path)
    try:
        data, _ = parse_json_text(read_text_file(path, "matrix file"), name)
    except CtxconfError as e:
        raise ProbeDataError(str(e)) from None
    if isinstance(data, dict) and data.get("format") == "ctxconf-probe-results":
        raise ProbeDataError(
            f"{name}: a results file, not a matrix: write one with "
            "`ctxconf probe --matrix RESULTS… --json MATRIX.json`"
        )
    validate_data(data, "matrix", name)
    return [_row_of(row) for row in data["rows"]]


def _earlier_row(row: Row, old: Sequence[Row]) -> Row | None:
    """The same harness and version, else the same harness's latest earlier row."""
    same = [o for o in old if o.harness == row.harness]
    exact = [o for o in same if o.version == row.version]
    if exact:
        return exact[0]
    return max(same, key=lambda o: o.date, default=None)


def _cell_change(new: Cell | None, old: Cell | None) -> Change | None:
    if new is None or old is None or new.verdict == old.verdict:
        return None
    if new.verdict in FAILING and old.verdict not in FAILING:
        return Change(old.verdict, WORSE)
    if old.verdict in FAILING and new.verdict in JUDGED:
        return Change(old.verdict, BETTER)
    return Change(old.verdict, CHANGED)  # neither started nor stopped failing


def _figure_changes(
    new: Figures, old: Figures, scenario: str, tolerance: Tolerance
) -> dict[str, Change]:
    changes = {}
    if percent(new.hit_rate) != percent(old.hit_rate):
        moved = CHANGED
        if new.hit_rate is not None and old.hit_rate is not None:
            moved = tolerance.hit_rate_moved(old.hit_rate, new.hit_rate)
        changes[f"hit_rate:{scenario}"] = Change(percent(old.hit_rate), moved)
    if new.lost != old.lost:
        moved = tolerance.tokens_moved(old.lost, new.lost)
        changes[f"lost:{scenario}"] = Change(f"{old.lost:,}", moved)
    if new.cost_usd != old.cost_usd:
        moved = CHANGED  # a price found or lost is no move of the cost
        if new.cost_usd is not None and old.cost_usd is not None:
            moved = tolerance.cost_moved(old.cost_usd, new.cost_usd)
        changes[f"cost:{scenario}"] = Change(money(old.cost_usd), moved)
    return changes


def money(cost: str | None) -> str:
    return "no price" if cost is None else f"${cost}"


def compare(
    rows: Sequence[Row], old: Sequence[Row], against: str, tolerance: Tolerance | None = None
) -> Comparison:
    tolerance = tolerance or Tolerance()
    changes: dict[tuple[str, str], dict[str, Change]] = {}
    new_rows = []
    for row in rows:
        earlier = _earlier_row(row, old)
        if earlier is None:
            new_rows.append((row.harness, row.version))
            continue
        found: dict[str, Change] = {}
        for check_id, _, _ in columns():
            change = _cell_change(row.cells.get(check_id), earlier.cells.get(check_id))
            if change is not None:
                found[check_id] = change
        for scenario, figures in row.cache.items():
            if scenario in earlier.cache:
                found.update(_figure_changes(figures, earlier.cache[scenario], scenario, tolerance))
        if found:
            changes[(row.harness, row.version)] = found
    names = {row.harness for row in rows}
    gone = [(o.harness, o.version) for o in old if o.harness not in names]
    return Comparison(against, changes, new_rows, gone, tolerance)


ORDER = {WORSE: 0, BETTER: 1, CHANGED: 2}
FIGURE_TITLES = {"hit_rate": "cache hit rate", "lost": "tokens lost", "cost": "cost"}


def change_lines(rows: Sequence[Row], comparison: Comparison) -> list[str]:
    """The changes as the console says them, the worse ones first, then the better ones; the
    rows new and gone; then the counts."""
    titles = {check_id: title for check_id, _, title in columns()}
    lines: list[tuple[int, str]] = []
    for row in rows:
        for column, change in comparison.of(row).items():
            kind, _, scenario = column.partition(":")
            what = titles.get(column) or f"{FIGURE_TITLES[kind]} in {scenario}"
            said = f"{change.direction}: {row.harness} {row.version}, {what}: "
            lines.append((ORDER[change.direction], said + f"{change.was} → {_now(row, column)}"))
    lines.sort(key=lambda pair: pair[0])
    out = [line for _, line in lines]
    out += [f"new: {harness} {version}" for harness, version in comparison.new_rows]
    out += [f"gone: {harness} {version}" for harness, version in comparison.gone_rows]
    return [*out, f"compared with {comparison.against}: {counts_said(comparison)}"]


def counts_said(comparison: Comparison) -> str:
    """`4 better, 0 worse, 2 changed (tolerance 5 %, 100 tokens, $0.0001)`."""
    counts = ", ".join(f"{comparison.count(d)} {d}" for d in (BETTER, WORSE, CHANGED))
    return f"{counts} (tolerance {comparison.tolerance.said()})"


def _now(row: Row, column: str) -> str:
    if ":" not in column:
        return row.cells[column].verdict
    kind, scenario = column.split(":", 1)
    figures = row.cache[scenario]
    if kind == "hit_rate":
        return percent(figures.hit_rate)
    if kind == "lost":
        return f"{figures.lost:,}"
    return money(figures.cost_usd)


__all__ = [
    "Cell",
    "Change",
    "Comparison",
    "Figures",
    "Row",
    "cache_scenarios",
    "change_lines",
    "columns",
    "compare",
    "counts_said",
    "load",
    "matrix_rows",
    "money",
    "to_data",
]
