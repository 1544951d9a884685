"""A page of many failing cases opens with a page's worth of cards: past the first SHELF_CASES of
a group, the cases wait in data blocks (shelves) of SHELF_CASES each, put on the page by a button
(the next shelf) or by a link to one of their cases (that case's shelf alone). Every case is in
the page exactly once, and the cards keep the cases' order whichever shelf comes down first."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxconf.runner import report_page
from ctxconf.runner.report import write_html
from tests.runner.test_report_bounds import _many_failing
from tests.runner.test_report_browser import CHROMIUM, Browser, becomes, becomes_visible

SHELF = 3
CASES = 8  # three cards in the page, then shelves of three and two
_CARD_ID = re.compile(r'<details class="case [^"]*" id="([^"]+)"')
_SHELF = re.compile(
    r'<script type="application/json" class="shelf" data-shelf="[^"]+">(.*?)</script>', re.S
)


@pytest.fixture
def page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(report_page, "SHELF_CASES", SHELF)
    path = tmp_path / "report.html"
    write_html(_many_failing(CASES), path)
    return path


def _ids() -> list[str]:
    return [f"case-context-stub-only-inside-an-earlier-read-{n}" for n in range(CASES)]


def test_past_the_first_cards_the_cases_wait_on_shelves(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    shelves = _SHELF.findall(html)
    assert _CARD_ID.findall(_SHELF.sub("", html)) == _ids()[:SHELF]
    data = [json.loads(text) for text in shelves]
    assert [len(_CARD_ID.findall(shelf["cards"])) for shelf in data] == [3, 2]
    assert all("<" not in text for text in shelves), "no markup the HTML parser could see"
    shelved = [card for shelf in data for card in _CARD_ID.findall(shelf["cards"])]
    assert shelved == _ids()[SHELF:], "each case once, in its order"
    for shelf in data:  # each lazy card's body beside it, escaped once
        assert "body-data" not in shelf["cards"]
        assert len(shelf["bodies"]) == shelf["cards"].count(' lazy"')
        assert all('class="diff"' in body for body in shelf["bodies"])
    assert "5 more cases wait in this page's data, put on the page 3 at a time" in html
    # A place for each shelf among the cards, its data after the page's script: the page works
    # before the parser reaches the shelves.
    assert html.count('class="shelf-place"') == 2
    assert html.index('class="shelf"') > html.index("<script>") > html.index('class="shelf-place"')


def test_a_group_that_fits_has_no_shelf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_page, "SHELF_CASES", CASES)
    path = tmp_path / "report.html"
    write_html(_many_failing(CASES), path)
    html = path.read_text(encoding="utf-8")
    assert 'class="shelf"' not in html and 'class="shelves"' not in html
    assert _CARD_ID.findall(html) == _ids()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
    opened = Browser(tmp_path / "profile")
    try:
        yield opened
    finally:
        opened.close()


CARDS = "Array.from(document.querySelectorAll('details.case'), d => d.id)"


def _cards_become(browser: Browser, expected: list[str], why: str = "") -> None:
    """The cards' ids become `expected` (a click's handler may still be running)."""
    assert becomes(browser, CARDS, expected) == expected, why


@pytest.mark.slow  # starts a browser
def test_the_button_puts_the_next_shelf_on_the_page(browser: Browser, page: Path) -> None:
    browser.open(page.as_uri(), 1280)
    _cards_become(browser, _ids()[:SHELF])
    button = "button.show-more"
    assert browser.evaluate(f"document.querySelector('{button}').textContent") == (
        "Show the next cases (5 more)"
    )
    browser.click(button)
    _cards_become(browser, _ids()[: 2 * SHELF])
    assert browser.evaluate(f"document.querySelector('{button}').textContent") == (
        "Show the next cases (2 more)"
    )
    browser.click(button)
    _cards_become(browser, _ids())
    assert (
        browser.evaluate("document.querySelectorAll('script.shelf, button.show-more').length") == 0
    )
    last = f"#{_ids()[-1]}"
    browser.click(f"{last} > summary")
    assert becomes_visible(browser, f"{last} .diff"), "a shelved case fills in when unfolded"
    assert browser.errors() == []


@pytest.mark.slow  # starts a browser
def test_a_link_to_a_shelved_case_puts_it_on_the_page_unfolded(
    browser: Browser, page: Path
) -> None:
    browser.open(f"{page.as_uri()}#{_ids()[-1]}", 1280)
    _cards_become(browser, _ids()[:SHELF] + _ids()[2 * SHELF :], "its own shelf alone")
    assert browser.evaluate(f"document.getElementById('{_ids()[-1]}').open") is True
    assert becomes_visible(browser, f"#{_ids()[-1]} .diff")
    assert browser.evaluate("document.querySelector('button.show-more').textContent") == (
        "Show the next cases (3 more)"
    )
    browser.click("button.show-more")
    _cards_become(browser, _ids(), "the shelf left comes down in its place")
    assert browser.errors() == []
