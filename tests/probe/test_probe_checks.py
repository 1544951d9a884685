"""Every check of the probe has a fake harness that passes it and one that fails it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxconf.probe.checks import CheckResult, judge
from ctxconf.probe.harness import run_probe
from ctxconf.probe.profile import load_profile
from ctxconf.probe.scenario import load_scenario

from .helpers import fake_profile


def probe(
    tmp_path: Path,
    shape: str,
    faults: tuple[str, ...] = (),
    scenario: str = "basic",
    mode: str = "per-turn",
) -> dict[str, CheckResult]:
    profile = load_profile(str(fake_profile(tmp_path, shape, faults, mode)))
    run = run_probe(profile, load_scenario(scenario), tmp_path / "logs")
    return {c.id: c for c in judge(run)}


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["chat", "responses", "anthropic", "gemini"])
def test_a_clean_harness_passes_every_exact_check_in_each_api_shape(
    tmp_path: Path, shape: str
) -> None:
    checks = probe(tmp_path, shape)
    for check_id in ("system-once", "no-clock", "tools-fixed", "history-prefix", "usage-shown"):
        assert checks[check_id].verdict == "pass", checks[check_id]
    assert checks["date-note"].verdict == "not-testable"
    assert checks["long-output"].figures["behaviour"] == "head and tail"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("fault", "check_id", "scenario"),
    [
        ("rebuilt-prompt", "system-once", "basic"),
        ("date-in-system", "no-clock", "basic"),
        ("date-in-system", "no-clock", "two-days"),
        ("changing-tools", "tools-fixed", "basic"),
        ("rewritten-previous", "history-prefix", "basic"),
        ("date-in-system", "date-note", "midnight"),
        ("rebuilt-prompt", "date-note", "midnight"),
        ("ignore-usage", "usage-shown", "basic"),
    ],
)
def test_a_fault_fails_its_check_and_the_clean_fake_passes_it(
    tmp_path: Path, fault: str, check_id: str, scenario: str
) -> None:
    clean = (
        probe(tmp_path / "clean", "chat", (), scenario)
        if (tmp_path / "clean").mkdir() is None
        else {}
    )
    faulty = probe(tmp_path, "chat", (fault,), scenario)
    assert clean[check_id].verdict == "pass", clean[check_id]
    assert faulty[check_id].verdict == "fail", faulty[check_id]


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["chat", "responses", "anthropic", "gemini"])
def test_a_side_conversation_of_the_harness_is_set_aside(tmp_path: Path, shape: str) -> None:
    # After each of the two turns, a memory subagent under its own prompt and tool list.
    checks = probe(tmp_path, shape, ("memory-subagent",))
    for check_id in ("system-once", "tools-fixed", "history-prefix", "usage-shown"):
        assert checks[check_id].verdict == "pass", checks[check_id]
    aside = "; 2 side requests of the harness's own set aside"
    assert checks["system-once"].summary.endswith(aside)
    assert checks["tools-fixed"].summary.endswith(aside)


@pytest.mark.slow
def test_a_remade_prompt_fails_beside_a_side_conversation(tmp_path: Path) -> None:
    checks = probe(tmp_path, "chat", ("memory-subagent", "rebuilt-prompt"))
    assert checks["system-once"].verdict == "fail", checks["system-once"]


@pytest.mark.slow
def test_midnight_fails_when_the_prompt_is_remade_naming_what_changed(tmp_path: Path) -> None:
    checks = probe(tmp_path, "anthropic", ("rebuilt-prompt",), "midnight")
    assert "system prompt was remade" in checks["date-note"].summary


@pytest.mark.slow
def test_two_days_compare_the_first_prompts_of_two_sessions(tmp_path: Path) -> None:
    checks = probe(tmp_path, "gemini", ("date-in-system",), "two-days")
    assert checks["no-clock"].figures["days"] == ["2027-01-15", "2027-03-20"]
    assert "2027-03-20" in checks["no-clock"].summary


@pytest.mark.slow
def test_an_uncapped_output_is_reported_whole_and_a_capped_one_with_both_ends(
    tmp_path: Path,
) -> None:
    whole = probe(tmp_path / "a", "chat", ("uncapped",)) if (tmp_path / "a").mkdir() is None else {}
    capped = probe(tmp_path, "chat")
    assert whole["long-output"].figures["behaviour"] == "full"
    assert whole["long-output"].figures["bytes"] == 288894
    figures = capped["long-output"].figures
    assert (figures["first_line_kept"], figures["last_line_kept"]) == (True, True)
    assert (figures["head_lines"], figures["tail_lines"]) == (200, 100)


@pytest.mark.slow
def test_a_reread_is_told_apart_as_stub_or_full(tmp_path: Path) -> None:
    stubbed = probe(tmp_path / "a", "anthropic") if (tmp_path / "a").mkdir() is None else {}
    full = probe(tmp_path, "responses")
    assert stubbed["reread"].figures["behaviour"] == "stub"
    assert full["reread"].figures["behaviour"] == "full"
    assert full["reread"].figures["again_chars"] >= full["reread"].figures["first_chars"]


def test_results_without_ids_in_their_text_are_counted(tmp_path: Path) -> None:
    checks = probe(tmp_path, "chat")
    assert checks["result-ids"].figures["ids_in_text"] == 0
    assert checks["result-ids"].figures["call_ids"] == checks["result-ids"].figures["results"]


def test_the_stream_json_driver_plays_every_turn_in_one_process(tmp_path: Path) -> None:
    checks = probe(tmp_path, "chat", (), "basic", mode="stream-json")
    assert checks["history-prefix"].verdict == "pass"
    assert checks["history-prefix"].figures["pairs"] == 5


def test_cached_tokens_are_found_in_a_file_the_harness_writes(tmp_path: Path) -> None:
    profile = load_profile(str(fake_profile(tmp_path, "chat", usage_file="usage.json")))
    run = run_probe(profile, load_scenario("basic"), tmp_path / "logs")
    usage = {c.id: c for c in judge(run)}["usage-shown"]
    assert usage.verdict == "pass" and "usage.json" in usage.summary


def test_a_harness_that_plays_one_task_cannot_be_told_the_date_and_says_so(tmp_path: Path) -> None:
    checks = probe(tmp_path, "chat", (), "midnight", mode="one-task")
    assert checks["date-note"].verdict == "not-testable"
    assert "one task" in checks["date-note"].summary
