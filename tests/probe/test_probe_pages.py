"""The matrix of several results: which scenario's verdict a check shows, and how it is written."""

from __future__ import annotations

from typing import Any

from ctxconf.probe.harness import VERSION_NUMBER
from ctxconf.probe.matrix import matrix_rows
from ctxconf.probe.pages import matrix_html, matrix_markdown, run_page


def _run(scenario: str, **verdicts: str) -> dict[str, Any]:
    return {
        "harness": {"name": "h", "api": "openai-chat", "version": "1.2.3"},
        "scenario": {"name": scenario},
        "started": "2026-11-30T10:00:00+00:00",
        "checks": [
            {"id": check.replace("_", "-"), "verdict": v, "summary": f"{v} in {scenario}"}
            for check, v in verdicts.items()
        ],
    }


def test_a_failure_in_any_scenario_shows() -> None:
    rows = matrix_rows([_run("basic", system_once="pass"), _run("midnight", system_once="fail")])
    assert rows[0].cells["system-once"].summary == "fail in midnight"


def test_otherwise_the_scenario_made_for_the_check_shows() -> None:
    runs = [_run("two-days", no_clock="pass"), _run("basic", no_clock="pass")]
    assert matrix_rows(runs)[0].cells["no-clock"].scenario == "two-days"
    untestable = [_run("two-days", no_clock="not-testable"), _run("basic", no_clock="pass")]
    assert matrix_rows(untestable)[0].cells["no-clock"].verdict == "pass"


def test_a_history_check_not_testable_anywhere_says_why_in_the_crash_scenario() -> None:
    runs = [
        _run("basic", no_half_turn="not-testable"),
        _run("crash-mid-call", no_half_turn="not-testable"),
        _run("midnight", no_half_turn="not-testable"),
    ]
    assert matrix_rows(runs)[0].cells["no-half-turn"].summary == "not-testable in crash-mid-call"


def test_the_pages_escape_what_a_harness_wrote() -> None:
    run = _run("basic", reread="info")
    run["checks"][0]["summary"] = "stub: '<script>alert(1)</script> | x'"
    rows = matrix_rows([run])
    page = matrix_html(rows)
    assert "<script>alert(1)" not in page  # the page's own script is its sorting alone
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "\\| x" in matrix_markdown(rows)


def test_a_version_is_the_number_in_what_the_version_command_printed() -> None:
    for printed, number in [
        ("This is mini-swe-agent version 2.4.6.", "2.4.6"),
        ("2.1.332 (Claude Code)", "2.1.332"),
        ("codex-cli 0.171.0", "0.171.0"),
    ]:
        found = VERSION_NUMBER.search(printed)
        assert found is not None and found.group(0) == number


def test_the_run_page_shows_what_did_not_happen_and_what_was_left_running_escaped() -> None:
    run = _run("basic", system_once="error")
    run.update(
        {
            "description": "",
            "finished": run["started"],
            "requests": 1,
            "ctxconf_version": "0",
            "clock_problem": None,
            "shortfalls": [{"need": "turns", "turn": 1, "reason": "turn 1 sent <b>no</b> request"}],
            "processes": [
                {
                    "session": 1,
                    "turns": [1],
                    "argv": ["h"],
                    "exit_code": 0,
                    "seconds": 1.0,
                    "timed_out": False,
                    "requests": 1,
                    "stderr_tail": "",
                    "left_running": ["tmux (tmux <new-session>)"],
                }
            ],
        }
    )
    run["scenario"]["description"] = ""
    for check in run["checks"]:
        check.update({"anchor": "pfx.system.once", "figures": {}})
    page = run_page(run)
    assert "turn 1 sent &lt;b&gt;no&lt;/b&gt; request" in page
    assert "tmux (tmux &lt;new-session&gt;)" in page and "<new-session>" not in page
