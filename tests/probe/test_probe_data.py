"""The probe's bundled data: every schema is a valid schema, every profile and scenario loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from ctxconf.cache.provider_diagnostics import DiagnosticsOptions
from ctxconf.probe.errors import ProbeDataError
from ctxconf.probe.profile import bundled_profiles, load_profile
from ctxconf.probe.scenario import Step, bundled_scenarios, load_scenario, scenario_from_data
from tests.paths import PROBE_SCHEMAS

BUNDLED = [
    "aider",
    "claude-code",
    "claude-code-per-turn",
    "cline",
    "codex",
    "continue-cli",
    "copilot",
    "droid",
    "gemini-cli",
    "gptme",
    "grok-cli",
    "hermes-agent",
    "kilo",
    "llm",
    "mini-swe-agent",
    "open-interpreter",
    "opencode",
    "openhands",
    "pi",
    "qwen-code",
    "qwen-code-per-turn",
]


@pytest.mark.parametrize("name", ["profile", "scenario", "results"])
def test_the_schema_is_valid(name: str) -> None:
    Draft202012Validator.check_schema(
        json.loads((PROBE_SCHEMAS / f"{name}.schema.json").read_text())
    )


def test_the_bundled_harnesses_have_profiles_that_load() -> None:
    assert bundled_profiles() == BUNDLED
    for name in BUNDLED:
        profile = load_profile(name)
        assert profile.name == name and profile.version_seen and profile.install


def test_every_bundled_harness_is_installed_and_probed_by_probe_all() -> None:
    script = (Path(__file__).parents[2] / "tools" / "probe_all.sh").read_text()
    start = script.index("all=(") + len("all=(")
    listed = script[start : script.index(")", start)].split()
    assert sorted(listed) == sorted(BUNDLED)


def test_the_bundled_scenarios_load_with_the_steps_the_checks_look_for() -> None:
    assert bundled_scenarios() == [
        "basic",
        "compact",
        "crash-mid-call",
        "idle",
        "instructions-edited",
        "long-session",
        "mcp-late",
        "midnight",
        "model-switch",
        "plan-mode",
        "reasoning",
        "two-days",
    ]
    # The idle scenario's pauses come before its second and third turns, on the provider's clock.
    assert load_scenario("idle").pauses() == {2: 360.0, 4: 3660.0}
    labels = {s.label for s in load_scenario("basic").steps()}
    assert {"read", "reread", "long-output"} <= labels
    assert len(load_scenario("two-days").sessions) == 2
    assert load_scenario("midnight").turns[1].clock is not None
    crash = load_scenario("crash-mid-call")
    killed = crash.killed_turn()
    assert killed is not None and crash.turns[killed].steps[0].kind == "bash"
    assert killed + 1 < len(crash.turns)


WITH = [{"read": "B.txt"}]


def test_a_scenario_step_of_several_blocks_and_the_diagnostics_options_are_read() -> None:
    data = {
        "name": "blocks",
        "description": "a text and two calls in one answer",
        "diagnostics": {"pending": True, "retention_s": 600},
        "turns": [{"user": "go", "steps": [{"read": "A.txt", "say": "Both.", "with": WITH}]}],
    }
    scenario = scenario_from_data(data, "blocks")
    step = scenario.steps()[0]
    assert (step.say, step.more) == ("Both.", (Step("read", "B.txt", None),))
    assert scenario.diagnostics == DiagnosticsOptions(pending=True, retention=600.0)
    data["turns"][0]["steps"] = [{"text": "Done.", "say": "no"}]  # a text says nothing first
    with pytest.raises(ProbeDataError):
        scenario_from_data(data, "blocks")
