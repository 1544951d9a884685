"""The report's page: a view rendered by the Jinja2 template `templates/report.html.j2` into one
self-contained page (inline CSS and JS, nothing fetched), under a CSP that allows only them.

A compact case's details travel as a `<script type="application/json">` data block
(`data_block`), which the page's script turns into HTML when the case is unfolded. Past the first
SHELF_CASES cases of a group, the cases themselves wait in data blocks of SHELF_CASES each (a
shelf), put on the page a shelf at a time; the shelves' data comes last in the page, after its
script. A page of 100,000 failing cases opens with a page's worth of cards, not 100,000.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from .report_model import ReportView

TEMPLATES = Path(__file__).resolve().parent / "templates"
SHELF_CASES = 1_000  # cards of a group in the page as it opens, and in each shelf after them


@functools.cache  # made once: each page would otherwise compile its templates again
def _environment() -> Environment:
    environment = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["data_block"] = data_block
    environment.globals["shelf_block"] = shelf_block
    return environment


def data_block(html: str) -> Markup:
    """Escaped HTML as the JSON text of a `<script type="application/json">` data block.

    Only `<` needs escaping there (it alone could end the block or open a comment); escaping it
    alone keeps the block nearly as small as the HTML it carries.
    """
    return Markup(json.dumps(str(html), ensure_ascii=False).replace("<", "\\u003c"))


def shelf_block(cards: str, bodies: list[str]) -> Markup:
    """A shelf's cards (escaped HTML) and its lazy cards' bodies, in their order, as the JSON
    text of a data block; `<` escaped as in `data_block`."""
    text = json.dumps({"cards": str(cards), "bodies": bodies}, ensure_ascii=False)
    return Markup(text.replace("<", "\\u003c"))


def render_html(view: ReportView) -> str:
    """The page for a view: CSS and JS inline, and a CSP that allows only that script."""
    script = (TEMPLATES / "report.js").read_text(encoding="utf-8")
    css = (TEMPLATES / "report.css").read_text(encoding="utf-8")
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            view=view,
            css=Markup(css),
            script=Markup(script),
            style_hash=_csp_hash(css),
            script_hash=_csp_hash(script),
            shelf_size=SHELF_CASES,
        )
    )


def _csp_hash(source: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode()
