"""The probe's pages: one run's results as HTML, and the harness-by-check matrix built from
several results files as HTML and markdown. Rendered from results files only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from .cache_view import bars, dollars, percent, scenario_figures
from .checks import CHECKS

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


def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("ctxconf.probe", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def run_page(data: dict[str, Any]) -> str:
    sessions = (data.get("cache") or {}).get("sessions", [])
    return (
        _environment()
        .get_template("run.html.j2")
        .render(
            run=data,
            symbol=SYMBOL,
            cache=[(s, bars(s)) for s in sessions],
            percent=percent,
            dollars=dollars,
        )
    )


@dataclass(frozen=True)
class Cell:
    verdict: str
    summary: str
    scenario: str


@dataclass(frozen=True)
class Row:
    harness: str
    version: str
    api: str
    date: str
    cells: dict[str, Cell]
    # By scenario: (cache hit rate, tokens re-read), for results files that have them.
    cache: dict[str, tuple[float | None, int]] = field(default_factory=dict)


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


def matrix_rows(runs: Sequence[dict[str, Any]]) -> list[Row]:
    by_harness: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        by_harness.setdefault(run["harness"]["name"], []).append(run)
    rows = []
    for name, group in sorted(by_harness.items()):
        cells: dict[str, Cell] = {}
        for run in group:
            for check in run["checks"]:
                cell = Cell(check["verdict"], check["summary"], run["scenario"]["name"])
                held = cells.get(check["id"])
                if held is None or _better(check["id"], cell, held):
                    cells[check["id"]] = cell
        cache = {}
        for run in group:
            figures = scenario_figures(run)
            if figures is not None:
                cache[run["scenario"]["name"]] = figures
        versions = sorted({r["harness"]["version"] or "unknown" for r in group})
        dates = sorted({r["started"][:10] for r in group})
        rows.append(
            Row(
                name,
                ", ".join(versions),
                group[0]["harness"]["api"],
                ", ".join(dates),
                cells,
                cache,
            )
        )
    return rows


def columns() -> list[tuple[str, str, str]]:
    return [(c.id, c.anchor, c.title) for c in CHECKS]


def cache_scenarios(rows: Sequence[Row]) -> list[str]:
    """The scenarios whose cache figures the matrix shows, a pair of columns each."""
    return sorted({scenario for row in rows for scenario in row.cache})


def matrix_html(runs: Sequence[dict[str, Any]]) -> str:
    rows = matrix_rows(runs)
    return (
        _environment()
        .get_template("matrix.html.j2")
        .render(
            rows=rows,
            columns=columns(),
            symbol=SYMBOL,
            scenarios=cache_scenarios(rows),
            percent=percent,
        )
    )


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def matrix_markdown(runs: Sequence[dict[str, Any]]) -> str:
    cols = columns()
    head = ["harness", "version", "API", "run on"] + [
        f"{title} (`{anchor}`)" for _, anchor, title in cols
    ]
    rows = matrix_rows(runs)
    scenarios = cache_scenarios(rows)
    for scenario in scenarios:
        head += [f"cache hit rate ({scenario})", f"tokens re-read ({scenario})"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = []
        for check_id, _, _ in cols:
            cell = row.cells.get(check_id)
            cells.append("" if cell is None else _md(f"{SYMBOL[cell.verdict]} {cell.summary}"))
        for scenario in scenarios:
            figures = row.cache.get(scenario)
            cells += ["", ""] if figures is None else [percent(figures[0]), f"{figures[1]:,}"]
        lines.append(
            "| " + " | ".join([row.harness, row.version, row.api, row.date, *cells]) + " |"
        )
    legend = "✅ pass · ❌ fail · 🔎 behaviour, with figures · ⚠️ error · — not testable"
    return "\n".join(lines) + "\n\n" + legend + "\n"


__all__ = ["matrix_html", "matrix_markdown", "matrix_rows", "run_page"]
