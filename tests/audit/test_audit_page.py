"""The audit's page in a real browser: the sessions sort by the column whose heading is pressed,
by number where the column is numeric (no figure first), and the other way when pressed again;
nothing a record holds runs as script."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxconf.audit.page import render_page
from tests.runner.test_report_browser import browser  # noqa: F401  (the fixture: one Chromium)

from .test_audit_command import ROWS, audit

CHROMIUM = Path("/usr/bin/chromium")
HOSTILE = "<img src=x onerror=window.pwned=1>"


def _column(page: Any, number: int) -> list[str]:
    return list(
        page.evaluate(
            "Array.from(document.querySelectorAll('#sessions tbody tr'))"
            f".map(r => r.cells[{number}].textContent.trim())"
        )
    )


@pytest.mark.slow  # starts a browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs chromium at /usr/bin/chromium")
def test_the_sessions_sort_by_a_pressed_heading_and_no_record_runs_as_script(
    browser: Any,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
) -> None:
    rows = [
        {**ROWS[0], "session": "a-quiet", "project": HOSTILE},
        {**ROWS[1], "session": "a-quiet"},
        *({**row, "session": "b-lossy"} for row in ROWS),
        {"t": 0, "uncached": 10, "session": f"c-{HOSTILE}"},  # no cache figure: hit rate N/A
    ]
    _, _, _, doc = audit(tmp_path, rows)
    page = tmp_path / "audit.html"
    page.write_text(render_page(doc), encoding="utf-8")
    browser.open(page.as_uri(), 1280)
    hit_rate, tokens_lost = 4, 6
    browser.click(f"#sessions thead th:nth-child({hit_rate + 1}) button")
    assert _column(browser, hit_rate)[0] == "N/A"  # no figure sorts first
    browser.click(f"#sessions thead th:nth-child({tokens_lost + 1}) button")
    assert _column(browser, tokens_lost) == ["0", "0", "12,000"]
    browser.click(f"#sessions thead th:nth-child({tokens_lost + 1}) button")
    assert _column(browser, tokens_lost) == ["12,000", "0", "0"]
    assert _column(browser, 2)[0] == "b-lossy"
    assert browser.evaluate("window.pwned === undefined") is True
    assert json.dumps(doc).count("onerror") == 2  # kept as text in the results, never markup
