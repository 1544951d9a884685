"""The probe's pages: one run's results as HTML, and the harness-by-check matrix built from
several results files as HTML and markdown. Rendered from results files only."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from .cache_view import bars, dollars, lost_words, nothing_to_save, percent
from .causes import check_summary
from .matrix import (
    RANK,
    SYMBOL,
    Change,
    Comparison,
    Row,
    cache_scenarios,
    columns,
    counts_said,
    money,
)
from .tolerance import CHANGED


@functools.cache  # made once: each page would otherwise compile its templates again
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
            cache=[(s, bars(s)) for s in sessions],
            percent=percent,
            dollars=dollars,
            lost_words=lost_words,
            nothing_to_save=nothing_to_save(data),
            summary=check_summary,
        )
    )


def matrix_html(rows: Sequence[Row], comparison: Comparison | None = None) -> str:
    return (
        _environment()
        .get_template("matrix.html.j2")
        .render(
            rows=rows,
            columns=columns(),
            scenarios=cache_scenarios(rows),
            percent=percent,
            money=money,
            comparison=comparison,
            changes=comparison.of if comparison else (lambda row: {}),
            is_new=lambda row: comparison is not None and _is_new(row, comparison),
            said=_changes_said(comparison) if comparison else "",
            moved=_moved_class,
            way=lambda change: "" if change.direction == CHANGED else f"{change.direction}, ",
            rank=RANK,
        )
    )


def _moved_class(change: Change) -> str:
    return "changed" if change.direction == CHANGED else f"changed {change.direction}"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def matrix_markdown(rows: Sequence[Row], comparison: Comparison | None = None) -> str:
    cols = columns()
    head = ["harness", "version", "API", "run on"] + [
        f"{title} (`{anchor}`)" for _, anchor, title in cols
    ]
    scenarios = cache_scenarios(rows)
    for scenario in scenarios:
        head += [
            f"cache hit rate ({scenario})",
            f"tokens lost ({scenario})",
            f"cost ({scenario})",
        ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        changed = comparison.of(row) if comparison else {}
        cells = []
        for check_id, _, _ in cols:
            cell = row.cells.get(check_id)
            text = "" if cell is None else f"{SYMBOL[cell.verdict]} {cell.summary}"
            cells.append(_shown(text, changed.get(check_id), verdict=True) if cell else "")
        for scenario in scenarios:
            figures = row.cache.get(scenario)
            if figures is None:
                cells += ["", "", ""]
                continue
            cells += [
                _shown(percent(figures.hit_rate), changed.get(f"hit_rate:{scenario}")),
                _shown(f"{figures.lost:,}", changed.get(f"lost:{scenario}")),
                _shown(money(figures.cost_usd), changed.get(f"cost:{scenario}")),
            ]
        name = row.harness + (" (new)" if comparison and _is_new(row, comparison) else "")
        head_cells = [_md(name), _md(row.version), row.api, row.date]
        lines.append("| " + " | ".join([*head_cells, *cells]) + " |")
    legend = "✅ pass · ❌ fail · 🔎 behaviour, with figures · ⚠️ error · — not testable"
    text = "\n".join(lines) + "\n\n" + legend + "\n"
    if comparison is not None:
        text += f"\nCompared with {_md(comparison.against)}: " + _changes_said(comparison) + "\n"
    return text


def _shown(text: str, change: Change | None, verdict: bool = False) -> str:
    """A markdown cell, with which way it moved and what it was since the earlier matrix."""
    if change is None:
        return _md(text)
    was = f"{SYMBOL[change.was]} {change.was}" if verdict else change.was
    mark = "" if change.direction == CHANGED else f"**{change.direction}**, "
    return _md(f"{text} ({mark}was {was})")


def _is_new(row: Row, comparison: Comparison) -> bool:
    return (row.harness, row.version) in comparison.new_rows


def _changes_said(comparison: Comparison) -> str:
    parts = [counts_said(comparison)]
    if comparison.new_rows:
        parts.append(f"{len(comparison.new_rows)} new rows")
    if comparison.gone_rows:
        gone = ", ".join(f"{h} {v}" for h, v in comparison.gone_rows)
        parts.append(f"gone: {gone}")
    return "; ".join(parts) + "."


__all__ = ["matrix_html", "matrix_markdown", "run_page"]
