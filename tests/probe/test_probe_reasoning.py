"""The reasoning checks against fake harnesses through the `reasoning` scenario: each clean fake
sends every answer's reasoning back as it came and passes; each way of mishandling it
(`fakes/mishandles_reasoning.py`) fails the check that sees it, with the place and, where the
cache audit sees one, the cause and what it cost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxconf.probe.checks import CheckResult

from .helpers import checks_of, run_fake, write_scenario

SCENARIOS = Path(__file__).parents[2] / "probe" / "data" / "scenarios"
pytestmark = pytest.mark.slow  # each test plays fake harnesses through the probe

SHAPES = ("anthropic", "responses", "gemini", "chat")
OWN = {
    "anthropic": "reasoning-anthropic",
    "responses": "reasoning-responses",
    "gemini": "reasoning-gemini",
    "chat": "reasoning-chat",
}


def _faults(shape: str) -> tuple[str, ...]:
    return ("thinking",) if shape == "anthropic" else ()


def _mishandled(tmp_path: Path, shape: str, how: str) -> dict[str, CheckResult]:
    run = run_fake(
        tmp_path,
        shape,
        "reasoning",
        faults=_faults(shape),
        variant="mishandles_reasoning",
        options=("--how", how),
    )
    return dict(checks_of(run))


@pytest.mark.parametrize("shape", SHAPES)
def test_a_clean_harness_sends_its_reasoning_back(tmp_path: Path, shape: str) -> None:
    checks = checks_of(run_fake(tmp_path, shape, "reasoning", faults=_faults(shape)))
    for check in (OWN[shape], "reasoning-kept", "reasoning-idle"):
        assert checks[check].verdict == "pass", checks[check].summary
    others = [OWN[s] for s in SHAPES if s != shape]
    assert {checks[c].verdict for c in others} == {"not-testable"}
    assert checks["reasoning-refused"].verdict == "not-testable"
    assert checks["reasoning-refused"].summary == "no request was refused for its reasoning"


def test_a_harness_that_never_asks_has_nothing_to_judge(tmp_path: Path) -> None:
    checks = checks_of(run_fake(tmp_path, "anthropic", "reasoning"))
    for check in ("reasoning-anthropic", "reasoning-kept", "reasoning-idle"):
        assert checks[check].verdict == "not-testable"
        assert "never asked for the model's reasoning" in checks[check].summary


@pytest.mark.parametrize("shape", SHAPES)
def test_dropped_reasoning_fails_the_turn_s_check(tmp_path: Path, shape: str) -> None:
    checks = _mishandled(tmp_path, shape, "drop")
    own = checks[OWN[shape]]
    assert own.verdict == "fail"
    assert "was left out" in own.summary


@pytest.mark.parametrize("shape", ["anthropic", "responses", "gemini"])
def test_a_rewritten_signature_is_refused_and_failed(tmp_path: Path, shape: str) -> None:
    checks = _mishandled(tmp_path, shape, "rewrite")
    own = checks[OWN[shape]]
    assert own.verdict == "fail"
    assert "was changed" in own.summary


def test_chat_reasoning_content_rewritten_passes_the_api_but_fails(tmp_path: Path) -> None:
    checks = _mishandled(tmp_path, "chat", "rewrite")
    assert checks["reasoning-chat"].verdict == "fail"


@pytest.mark.parametrize("shape", ["anthropic", "responses"])
def test_reasoning_after_its_call_is_moved(tmp_path: Path, shape: str) -> None:
    checks = _mishandled(tmp_path, shape, "after-call")
    own = checks[OWN[shape]]
    assert own.verdict == "fail"
    assert "was moved from its place" in own.summary


@pytest.mark.parametrize("shape", ["anthropic", "responses", "gemini"])
def test_earlier_reasoning_stripped_fails_kept_with_its_cost(tmp_path: Path, shape: str) -> None:
    checks = _mishandled(tmp_path, shape, "strip-earlier")
    kept = checks["reasoning-kept"]
    assert kept.verdict == "fail"
    figures = kept.figures
    assert figures["cause"] == "reasoning-stripped"
    assert figures["unit"] and figures["byte"] is not None
    assert checks[OWN[shape]].verdict == "pass"
    idle = checks["reasoning-idle"]
    assert idle.verdict == "fail"
    assert idle.figures["lost_tokens"] == 0
    assert "charged as no break" in idle.summary


def test_deepseek_refuses_an_earlier_tool_call_without_its_reasoning(tmp_path: Path) -> None:
    checks = _mishandled(tmp_path, "chat", "strip-earlier")
    assert checks["reasoning-kept"].verdict == "fail"
    # The resumed process changes its request but still leaves the reasoning out: refused again.
    refused = checks["reasoning-refused"]
    assert (refused.verdict, refused.figures["did"]) == ("fail", "refused-again"), refused.summary


def test_a_harness_of_one_task_per_run_has_no_turn_after_the_pause(tmp_path: Path) -> None:
    checks = checks_of(run_fake(tmp_path, "chat", "reasoning", mode="one-task"))
    idle = checks["reasoning-idle"]
    assert (idle.verdict, idle.summary) == (
        "not-testable",
        "the harness plays one task per run: no turn after the pause",
    )
    assert checks["reasoning-chat"].verdict == "pass"  # its one turn is judged all the same


def test_answers_that_call_no_tool_leave_no_tool_use_turn_to_judge(tmp_path: Path) -> None:
    text_only = {
        "name": "reasoning-text",
        "description": "Two turns the model answers in words, reasoning first.",
        "reasoning": {"chat": "deepseek"},
        "turns": [
            {"user": "Say hello.", "steps": [{"text": "Hello.", "think": "A greeting."}]},
            {"user": "Again.", "steps": [{"text": "Hello again.", "think": "Once more."}]},
        ],
    }
    scenario = write_scenario(tmp_path, text_only)
    checks = checks_of(run_fake(tmp_path / "run", "chat", scenario))
    chat = checks["reasoning-chat"]
    assert chat.verdict == "not-testable", chat.summary
    assert "no tool-use turn" in chat.summary
    kept = checks["reasoning-kept"]
    assert kept.verdict == "not-testable", kept.summary
    assert "Chat provider ignores such reasoning" in kept.summary


def test_chat_reasoning_of_a_turn_without_a_call_may_be_left_out(tmp_path: Path) -> None:
    # DeepSeek ignores reasoning_content sent back from a turn that called no tool: leaving it
    # out changes nothing it reads, and is no fault; the same strip on a keep-all Anthropic
    # model rewrites what it caches.
    chat = _mishandled(tmp_path / "chat", "chat", "strip-plain")
    assert chat["reasoning-kept"].verdict == "pass", chat["reasoning-kept"].summary
    assert chat["reasoning-chat"].verdict == "pass"
    anthropic = _mishandled(tmp_path / "anthropic", "anthropic", "strip-plain")
    assert anthropic["reasoning-kept"].verdict == "fail", anthropic["reasoning-kept"].summary
    # Kimi caches that reasoning byte for byte: there the same strip is a break.
    bundled = json.loads((SCENARIOS / "reasoning.json").read_text())
    kimi = write_scenario(
        tmp_path, {**bundled, "name": "reasoning-kimi", "reasoning": {"chat": "kimi"}}
    )
    run = run_fake(
        tmp_path / "kimi",
        "chat",
        kimi,
        variant="mishandles_reasoning",
        options=("--how", "strip-plain"),
    )
    kept = checks_of(run)["reasoning-kept"]
    assert kept.verdict == "fail", kept.summary


@pytest.mark.parametrize("shape", ["anthropic", "responses", "gemini"])
def test_a_refused_request_sent_again_unchanged_fails(tmp_path: Path, shape: str) -> None:
    checks = _mishandled(tmp_path, shape, "retry-refused")
    refused = checks["reasoning-refused"]
    assert refused.verdict == "fail"
    assert refused.figures["did"] == "retried-unchanged"
