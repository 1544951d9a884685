"""The matrix page sorts: a button in each column's heading, the values it sorts by in each
cell's `data-sort` (a verdict's rank, a hit rate, a count of tokens, a cost; -1 where a
harness has no figure), one small script that moves rows and writes no markup; and, in a real
browser (slow), a click sorts by number where the column is numeric and by text where it is
not."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from ctxconf.probe.checks import CHECKS
from ctxconf.probe.matrix import RANK, matrix_rows
from ctxconf.probe.pages import matrix_html
from tests.runner.test_report_browser import browser  # noqa: F401  (the fixture: one Chromium)

HOSTILE = "<img src=x onerror=window.pwned=1>"


def _run(harness: str, hit_rate: float | None, reread: int, verdict: str) -> dict[str, Any]:
    return {
        "harness": {"name": harness, "api": "anthropic", "version": "1.0"},
        "scenario": {"name": "basic"},
        "started": "2026-11-30T10:00:00+00:00",
        "checks": [{"id": CHECKS[0].id, "verdict": verdict, "summary": f"{HOSTILE} {verdict}"}],
        "cache": {"totals": {"hit_rate": hit_rate, "lost": reread, "cost_usd": "0.5"}},
    }


RUNS = [
    _run("b-harness", 0.25, 12000, "pass"),
    _run("a-harness", None, 300, "fail"),
    _run("c-harness", 0.9, 4500, "info"),
    {**_run("d-harness", 0.0, 0, "error"), "cache": None},
]


class _Cells(HTMLParser):
    """The heading buttons' texts and each body row's cells' data-sort values."""

    def __init__(self) -> None:
        super().__init__()
        self.buttons: list[str] = []
        self.rows: list[list[str | None]] = []
        self.scripts = 0
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "button" and found.get("class") == "sort":
            self.buttons.append("")
            self._in = "button"
        elif tag == "script":
            self.scripts += 1
        elif tag == "tbody":
            self._in = "body"
        elif tag == "tr" and self._in == "body":
            self.rows.append([])
        elif tag in ("td", "th") and self._in == "body":
            self.rows[-1].append(found.get("data-sort"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "button":
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "button":
            self.buttons[-1] += data


def _parsed() -> _Cells:
    cells = _Cells()
    cells.feed(matrix_html(matrix_rows(RUNS)))
    return cells


def test_every_heading_is_a_button() -> None:
    cells = _parsed()
    titles = [c.title for c in CHECKS]
    assert cells.buttons == [
        "harness",
        "version",
        "API",
        "run on",
        "cache hit ratebasic",
        "tokens lostbasic",
        "costbasic",
        *titles,
    ]  # the cache figures first: they stand within a laptop's width


def test_each_cell_carries_the_value_it_sorts_by() -> None:
    rows = _parsed().rows
    checks = len(CHECKS)
    # The rows come sorted by harness; the name, version, API and date sort by their text.
    assert [row[:4] for row in rows] == [[None] * 4] * 4
    first_check = [row[7] for row in rows]
    assert first_check == [str(RANK[v]) for v in ("fail", "pass", "info", "error")]
    assert {row[8 + n] for row in rows for n in range(checks - 1)} == {"0"}  # not run: no rank
    cache = [row[4:7] for row in rows]
    assert cache == [
        ["-1", "300", "0.5"],
        ["0.25", "12000", "0.5"],
        ["0.9", "4500", "0.5"],
        ["-1", "-1", "-1"],
    ]


def test_the_page_has_one_script_and_everything_a_harness_wrote_stays_escaped() -> None:
    page = matrix_html(matrix_rows(RUNS))
    assert _parsed().scripts == 1
    assert HOSTILE not in page and "&lt;img src=x onerror=window.pwned=1&gt;" in page
    script = page[page.index("<script>") : page.index("</script>")]
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script
    assert re.search(r"addEventListener\(\"click\"", script)


# --- in a browser ------------------------------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")


def _column(page: Any, number: int) -> list[str]:
    return list(
        page.evaluate(
            "Array.from(document.querySelectorAll('#matrix tbody tr'))"
            f".map(r => r.cells[{number}].textContent.trim())"
        )
    )


@pytest.mark.slow  # starts a browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs chromium at /usr/bin/chromium")
def test_a_click_sorts_by_number_or_by_text_and_again_the_other_way(
    browser: Any,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
) -> None:
    page = tmp_path / "matrix.html"
    page.write_text(matrix_html(matrix_rows(RUNS)), encoding="utf-8")
    browser.open(page.as_uri(), 1280)
    reread = 4 + 1
    heading = f"#matrix thead th:nth-child({reread + 1}) button"
    browser.click(heading)
    assert _column(browser, reread) == ["", "300", "4,500", "12,000"]  # -1 first: no figure
    browser.click(heading)
    assert _column(browser, reread) == ["12,000", "4,500", "300", ""]
    assert (
        browser.evaluate(
            f"document.querySelector('#matrix thead th:nth-child({reread + 1})')"
            ".getAttribute('aria-sort')"
        )
        == "descending"
    )
    browser.click("#matrix thead th:nth-child(1) button")
    assert _column(browser, 0) == ["a-harness", "b-harness", "c-harness", "d-harness"]
    browser.click("#matrix thead th:nth-child(1) button")
    assert _column(browser, 0) == ["d-harness", "c-harness", "b-harness", "a-harness"]
    assert browser.evaluate("typeof window.pwned") == "undefined"
    assert browser.errors() == []
