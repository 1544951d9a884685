"""The matrix page on a laptop's screen: the cache figures come right after the harness, one
scenario's group at a time where there are several (radio buttons choose it, or all), so that
they stand within 1,400 px; and every verdict's glyph is inline SVG, which reads without an
emoji font, on the matrix and on a run's page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ctxconf.probe.checks import CHECKS
from ctxconf.probe.matrix import matrix_rows
from ctxconf.probe.pages import matrix_html, run_page
from tests.runner.test_report_browser import browser  # noqa: F401  (the fixture: one Chromium)

SCENARIOS = (
    "basic", "two-days", "midnight", "crash-mid-call", "instructions-edited", "mcp-late",
    "plan-mode", "model-switch", "compact", "long-session",
)  # fmt: skip
VERDICTS = ("pass", "fail", "info", "error", "not-testable")
SUMMARY = "one system prompt per session, resent byte for byte (28,461 chars)"
# Emoji and the symbols an emoji font draws: a box where none is installed.
EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b50\u2b55\ufe0f]")


def _run(harness: str, scenario: str, n: int) -> dict[str, Any]:
    return {
        "harness": {"name": harness, "api": "openai-responses", "version": "2.1.332"},
        "scenario": {"name": scenario},
        "started": "2026-12-02T10:00:00+00:00",
        "checks": [
            {
                "id": c.id,
                "anchor": c.anchor,
                "verdict": VERDICTS[(n + k) % 5],
                "summary": SUMMARY,
                "figures": {},
            }
            for k, c in enumerate(CHECKS)
        ],
        "cache": {"totals": {"hit_rate": 0.805, "lost": 12_345, "cost_usd": "0.0539485"}},
    }


def _every_scenario() -> str:
    """Every bundled scenario for a few harnesses with the longest names bundled."""
    names = ("claude-code-per-turn", "qwen-code-per-turn", "open-interpreter")
    runs = [_run(h, s, n) for n, h in enumerate(names) for s in SCENARIOS]
    return matrix_html(matrix_rows(runs))


def test_the_cache_figures_come_right_after_the_harness_one_group_each() -> None:
    page = _every_scenario()
    heads = re.findall(r'<th scope="col"( class="([^"]*)")?>', page)
    groups = [classes for _, classes in heads]
    assert groups[:4] == [""] * 4  # harness, version, API, run on
    assert groups[4 : 4 + 3 * len(SCENARIOS)] == [
        f"cache g{n}" for n in range(len(SCENARIOS)) for _ in range(3)
    ]
    assert groups[4 + 3 * len(SCENARIOS) :] == [""] * len(CHECKS)
    assert page.count('type="radio" name="view"') == len(SCENARIOS) + 1  # and "all"
    assert re.search(r'id="view-0" checked>', page)


def test_one_scenario_needs_no_choice_of_group() -> None:
    page = matrix_html(matrix_rows([_run("h", "basic", 0)]))
    assert 'type="radio"' not in page and "#matrix .cache { display: none; }" not in page


@pytest.mark.parametrize("which", ["matrix", "run"])
def test_no_verdict_is_drawn_with_an_emoji(which: str) -> None:
    run = {**_run("h", "basic", 0), "ctxconf_version": "0.1.0", "requests": 3}
    run["scenario"]["description"] = "a short session"
    run.update(finished="2026-12-02T10:01:00+00:00", clock_problem=None, processes=[])
    page = matrix_html(matrix_rows([run])) if which == "matrix" else run_page(run)
    assert not EMOJI.findall(page), sorted(set(EMOJI.findall(page)))
    for verdict in VERDICTS:
        assert f'<svg class="glyph {verdict}" viewBox="0 0 16 16"' in page
        assert f'role="img" aria-label="{verdict}">' in page


# --- in a browser ------------------------------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")
RIGHT_EDGE = (
    "Math.max(...Array.from(document.querySelectorAll('#matrix thead th.cache'))"
    ".filter(e => e.getClientRects().length > 0).map(e => e.getBoundingClientRect().right))"
)


@pytest.mark.slow  # starts a browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs chromium at /usr/bin/chromium")
def test_the_cache_figures_stand_within_a_laptops_width(
    browser: Any,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
) -> None:
    page = tmp_path / "matrix.html"
    page.write_text(_every_scenario(), encoding="utf-8")
    browser.open(page.as_uri(), 1400)
    shown = "document.querySelectorAll('#matrix thead th.cache')"
    visible = f"Array.from({shown}).filter(e => e.getClientRects().length > 0).length"
    assert browser.evaluate(visible) == 3  # basic's group, chosen first
    assert browser.evaluate(RIGHT_EDGE) <= 1400
    browser.screenshot(tmp_path / "matrix-1400.png")
    browser.click('label[for="view-9"]')  # two-days, the last: its group stands where basic's did
    assert browser.evaluate(visible) == 3 and browser.evaluate(RIGHT_EDGE) <= 1400
    assert "two-days" in browser.evaluate(f"{shown}[27].textContent")
    # Every group at once is what pushed the figures off the screen.
    browser.click('label[for="view-all"]')
    assert browser.evaluate(visible) == 3 * len(SCENARIOS)
    assert browser.evaluate(RIGHT_EDGE) > 1400
    assert browser.errors() == []
