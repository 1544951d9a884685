"""The cache figures where people look: the console's line, the run page's bars and causes, and
the matrix's hit rate and tokens lost per scenario."""

from __future__ import annotations

from typing import Any

from ctxconf.probe.cache_view import bars, console_lines
from ctxconf.probe.matrix import Figures, matrix_rows
from ctxconf.probe.pages import matrix_html, matrix_markdown, run_page


def _request(
    n: int, read: int, uncached: int, diagnosis: Any = None, written: int = 0
) -> dict[str, Any]:
    return {
        "n": n,
        "model": "m",
        "input_total": read + uncached,
        "cache_read": read,
        "cache_write": written,
        "cache_write_1h": 0,
        "uncached": uncached,
        "output": 10,
        "refused": None,
        "cost_usd": None,
        "headers": {},
        "diagnosis": diagnosis,
    }


CAUSE = {
    "kind": "system-text",
    "anchor": "pfx.system.once",
    "detail": "the system prompt's text changed",
    "unit": "system.0",
    "byte": 12,
    "diff": {"earlier": "Request <b>1</b>", "later": "Request <script>2", "at": 8},
}


def _run(scenario: str, rate: float, reread: int) -> dict[str, Any]:
    rows = [
        _request(1, 0, 1000),
        _request(
            2,
            0,
            2000,
            {
                "against": 1,
                "shared": 900,
                "read": 0,
                "lost": 900,
                "lost_other": 30,
                "lost_usd": "0.0027",
                "lost_other_usd": None,
                "causes": [CAUSE],
            },
            written=1200,
        ),
    ]
    totals = {
        "requests": 2,
        "input_total": 3000,
        "cache_read": 0,
        "cache_write": 0,
        "uncached": 3000,
        "hit_rate": rate,
        "lost": reread,
        "lost_other": 30,
        "cost_usd": "0.0123",
        "lost_usd": "0.0027",
        "lost_other_usd": None,
    }
    session = {"session": 1, "provider": "anthropic", "prices": [], "totals": totals}
    return {
        "harness": {"name": "h", "api": "anthropic", "version": "1.0", "description": ""},
        "scenario": {"name": scenario, "description": "d"},
        "started": "2027-01-15T10:00:00+00:00",
        "finished": "2027-01-15T10:01:00+00:00",
        "ctxconf_version": "0",
        "requests": 2,
        "clock_problem": None,
        "checks": [],
        "processes": [],
        "cache": {"sessions": [{**session, "requests": rows}], "totals": totals},
    }


def test_the_console_gives_each_sessions_figures() -> None:
    assert console_lines(_run("basic", 0.25, 900)) == [
        "  cache, session 1 under anthropic: input 3,000, read 0, written 0, uncached 3,000, "
        "hit rate 25.0 %, cost $0.0123; lost to the harness 900 tokens ($0.0027), "
        "to lifetimes and rounding 30 tokens"
    ]
    assert console_lines({"checks": []}) == []


def test_the_bars_share_one_scale_within_a_session() -> None:
    session = {"requests": [_request(1, 300, 100), _request(2, 0, 800, written=200)]}
    drawn = bars(session)
    assert [(b.read_px, b.written_px, b.neither_px) for b in drawn] == [
        (150, 0, 50),
        (0, 100, 300),
    ]


def test_the_run_page_shows_the_number_then_the_cause_then_the_bytes_escaped() -> None:
    page = run_page(_run("basic", 0.25, 900))
    assert "<strong>25.0 %</strong> of 3,000 input tokens" in page
    assert "<svg" in page and 'aria-label="0 read, 1,200 written, 800 neither"' in page
    # Written and uncached side by side, each its own cell; the loss apart from lifetimes.
    assert '<td class="num">1,200</td><td class="num">800</td>' in page
    assert "lost 900 tokens ($0.0027)</strong> · 30 tokens to lifetimes and rounding" in page
    assert "system-text" in page and "pfx.system.once" in page
    assert "<script>2" not in page and "&lt;script&gt;2" in page
    assert "<b>1</b>" not in page
    assert page.index("25.0 %") < page.index("system-text") < page.index("&lt;script&gt;2")


def test_the_run_page_shows_the_providers_verdict_beside_the_cause() -> None:
    run = _run("basic", 0.25, 900)
    words = "the provider says system_changed (850 tokens by its estimate) — agrees"
    verdict = {"reason": "system_changed", "missed": 850, "agrees": True, "words": words}
    run["cache"]["sessions"][0]["requests"][1]["provider_verdict"] = verdict
    page = run_page(run)
    assert f'<div class="provider">{words}</div>' in page
    assert page.index("system-text") < page.index(words)
    assert [b.provider for b in bars(run["cache"]["sessions"][0])] == [None, words]


def test_the_matrix_gains_a_hit_rate_tokens_re_read_and_cost_per_scenario() -> None:
    rows = matrix_rows([_run("basic", 0.25, 900), _run("midnight", 0.5, 40)])
    assert rows[0].cache == {
        "basic": Figures(0.25, 900, "0.0123"),
        "midnight": Figures(0.5, 40, "0.0123"),
    }
    markdown = matrix_markdown(rows)
    head, _, row = markdown.splitlines()[:3]
    assert head.endswith(
        "| cache hit rate (basic) | tokens lost (basic) | cost (basic) "
        "| cache hit rate (midnight) | tokens lost (midnight) | cost (midnight) |"
    )
    assert row.endswith("| 25.0 % | 900 | $0.0123 | 50.0 % | 40 | $0.0123 |")
    html = matrix_html(rows)
    assert '<td data-sort="0.25" class="cache g0">25.0 %</td>' in html
    assert '<td data-sort="900" class="cache g0">900</td>' in html
    assert '<td data-sort="0.0123" class="cache g1">$0.0123</td>' in html
    assert 'class="sort">cost<br>midnight</button>' in html


def test_a_results_file_without_a_cache_section_shows_no_cache_columns() -> None:
    old = _run("basic", 0.25, 900)
    del old["cache"]
    assert "cache hit rate" not in matrix_markdown(matrix_rows([old]))
    assert "Prompt cache" not in run_page(old)


def _below_minimum_run() -> dict[str, Any]:
    below = {**CAUSE, "kind": "below-minimum", "anchor": None, "diff": None}
    run = _run("basic", 0.0, 0)
    for session in run["cache"]["sessions"]:
        session["totals"]["lost"] = 0
        session["requests"][1]["diagnosis"] = {
            **session["requests"][1]["diagnosis"],
            "lost": 0,
            "causes": [below],
        }
    return run


def test_a_run_whose_every_loss_is_the_provider_s_says_the_harness_lost_nothing() -> None:
    run = _below_minimum_run()
    hint = console_lines(run)[-1]
    assert hint.startswith("  the harness lost nothing it could save")
    assert "--padding 4000" in hint and "--provider llamacpp" in hint
    assert "the harness lost nothing it could save" in run_page(run)


def test_rounding_alone_is_no_matter_of_size_and_gets_no_such_words() -> None:
    run = _below_minimum_run()
    for session in run["cache"]["sessions"]:
        session["requests"][1]["diagnosis"]["causes"][0]["kind"] = "rounding"
    assert not any("lost nothing" in line for line in console_lines(run))


def test_a_loss_the_harness_could_have_saved_gets_no_such_words() -> None:
    run = _run("basic", 0.25, 900)  # a system-text change, 900 tokens lost to the harness
    assert not any("lost nothing" in line for line in console_lines(run))
    assert "lost nothing" not in run_page(run)
