"""The audit as a page, drawn from the results document alone: the figures, the causes by what
they cost, a sortable table of sessions, and per session a chart of every request (read,
written and uncached tokens side by side, the losses marked) with a card for each loss. Every
text from a file is escaped by the template."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from .console import comparisons
from .words import dollars, rate

# The chart's size: a bar per request, at most this wide, within this height.
CHART_HEIGHT = 120
BAR_WIDTH = 8
MAX_CHART_WIDTH = 1200


def chart(timeline: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Bars for a session's requests: each split into read, written and uncached, scaled to the
    largest request; a loss drawn with its lost tokens above the read."""
    totals = [
        (s["read"] or 0) + (s["written_5m"] or 0) + (s["written_1h"] or 0) + (s["uncached"] or 0)
        for s in timeline
    ]
    top = max(totals, default=0) or 1
    width = min(BAR_WIDTH, max(2, MAX_CHART_WIDTH // max(len(timeline), 1)))
    bars = []
    for n, step in enumerate(timeline):
        parts = (
            ("read", step["read"] or 0),
            ("written", (step["written_5m"] or 0) + (step["written_1h"] or 0)),
            ("uncached", step["uncached"] or 0),
        )
        y = float(CHART_HEIGHT)
        rects = []
        for kind, tokens in parts:
            height = CHART_HEIGHT * tokens / top
            y -= height
            rects.append({"kind": kind, "y": round(y, 2), "height": round(height, 2)})
        bars.append(
            {
                "x": n * width,
                "rects": rects,
                "lost": step["lost"] > 0,
                "title": f"#{step['index'] + 1}: read {step['read']}, written "
                f"{(step['written_5m'] or 0) + (step['written_1h'] or 0)}, uncached "
                f"{step['uncached']}" + (f", lost {step['lost']:,}" if step["lost"] else ""),
            }
        )
    return {
        "bars": bars,
        "width": max(len(timeline) * width, 1),
        "height": CHART_HEIGHT,
        "bar": width,
    }


@functools.cache
def _environment() -> Environment:
    """Made once: compiling the template costs more than drawing a page (the live view draws one
    after each exchange)."""
    environment = Environment(
        loader=PackageLoader("ctxconf.audit", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["usd"] = dollars
    environment.filters["rate"] = rate
    return environment


def render_page(doc: Mapping[str, Any], refresh: int | None = None) -> str:
    """The page; with `refresh`, one a browser reloads every that many seconds (a live view
    rewritten as it grows)."""
    page = _environment().get_template("audit.html.j2")
    return page.render(doc=doc, chart=chart, notes=comparisons(doc["figures"]), refresh=refresh)
