"""The scenarios that change a session mid-way (an instruction file edited, an MCP server's tools
late and reordered, plan mode, a model switch, /compact, a long session): each has a fake that
fails it and a clean twin that passes it; a change that did not happen is an `error` with the
reason, and one the profile cannot cause is `not-testable`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ctxconf.probe.checks import CheckResult, judge_run
from ctxconf.probe.errors import ProbeDataError
from ctxconf.probe.events import command_argv, unplayable
from ctxconf.probe.harness import ProbeRun
from ctxconf.probe.profile import Command, load_profile
from ctxconf.probe.scenario import load_scenario

from .helpers import fake_profile, run_fake, write_scenario

INSTRUCTIONS: dict[str, Any] = {"instructions_file": "AGENTS.md"}
MCP: dict[str, Any] = {
    "mcp": {
        "file": "work/fake-mcp.json",
        "content": '{"command": "{mcp_command}", "args": {mcp_args}}',
    }
}
# The server merged into a JSON file the profile writes with settings of its own.
MCP_MERGED: dict[str, Any] = {
    "files": {"work/fake-mcp.json": '{"theme": "dark", "mcpServers": {}}'},
    "mcp": {
        "file": "work/fake-mcp.json",
        "merge": {"mcpServers": {"{mcp_name}": {"command": "{mcp_command}", "args": "{mcp_args}"}}},
    },
}
PLAN: dict[str, Any] = {"commands": {"plan_mode": {"args": ["--plan"]}}}
SWITCH: dict[str, Any] = {"commands": {"model_switch": {"args": ["--model", "mock-model-2"]}}}
COMPACT: dict[str, Any] = {"commands": {"compact": {"message": "/compact"}}}
SET_UP: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "instructions-edited": (INSTRUCTIONS, ("--instructions", "AGENTS.md")),
    "mcp-late": (MCP, ("--mcp-config", "fake-mcp.json")),
    "plan-mode": (PLAN, ()),
    "model-switch": (SWITCH, ()),
    "compact": (COMPACT, ()),
}


def probe(
    folder: Path,
    scenario: str,
    faults: tuple[str, ...] = (),
    mode: str = "per-turn",
    extra: dict[str, Any] | None = None,
    args: tuple[str, ...] | None = None,
) -> dict[str, CheckResult]:
    default_extra, default_args = SET_UP[scenario]
    run = run_fake(
        folder,
        "chat",
        scenario,
        faults=faults,
        mode=mode,
        extra=default_extra if extra is None else extra,
        args=default_args if args is None else args,
    )
    return {c.id: c for c in judge_run(run).checks}


@pytest.mark.slow  # plays two fake harnesses through a three-turn scenario, a process a turn
@pytest.mark.parametrize(
    ("scenario", "fault", "check_id", "mode"),
    [
        ("instructions-edited", "instructions-in-system", "instructions-note", "per-turn"),
        ("instructions-edited", "instructions-in-system", "system-once", "per-turn"),
        ("instructions-edited", "instructions-into-first", "instructions-note", "per-turn"),
        ("instructions-edited", "instructions-into-first", "history-prefix", "per-turn"),
        ("instructions-edited", "instructions-ignored", "instructions-note", "stream-json"),
        ("mcp-late", "mcp-join", "mcp-tools", "per-turn"),
        ("mcp-late", "mcp-join", "mcp-tools", "stream-json"),
        ("mcp-late", "mcp-join", "tools-fixed", "per-turn"),
        ("plan-mode", "plan-tools", "tools-fixed", "per-turn"),
        ("model-switch", "switch-rewrites", "history-prefix", "per-turn"),
        ("compact", "compact-apart", "compact-turn", "per-turn"),
        ("compact", "compact-keeps-history", "compact-after", "stream-json"),
    ],
)
def test_a_fault_fails_the_scenario_and_the_clean_twin_passes_it(
    tmp_path: Path, scenario: str, fault: str, check_id: str, mode: str
) -> None:
    clean = probe(tmp_path / "clean", scenario, mode=mode)
    faulty = probe(tmp_path / "faulty", scenario, (fault,), mode=mode)
    assert clean[check_id].verdict == "pass", clean[check_id]
    assert faulty[check_id].verdict == "fail", faulty[check_id]


@pytest.mark.slow  # a fake harness through a three-turn scenario
def test_an_edit_written_into_the_first_message_on_resume_is_named(tmp_path: Path) -> None:
    checks = probe(tmp_path, "instructions-edited", ("instructions-into-first",))
    assert "after the resume rewrote message 0" in checks["instructions-note"].summary


@pytest.mark.slow  # a fake harness through a three-turn scenario
def test_a_harness_that_never_reads_the_file_makes_the_edit_checks_errors(tmp_path: Path) -> None:
    checks = probe(tmp_path, "instructions-edited", args=())
    for check_id in ("instructions-note", "system-once", "history-prefix"):
        assert checks[check_id].verdict == "error", checks[check_id]
        assert "never read AGENTS.md" in checks[check_id].summary


@pytest.mark.slow  # two fake harnesses through a three-turn scenario, a process a turn
@pytest.mark.parametrize("mode", ["per-turn", "stream-json"])
def test_a_server_merged_into_the_harness_config_fails_the_joiner_and_passes_its_twin(
    tmp_path: Path, mode: str
) -> None:
    clean = probe(tmp_path / "clean", "mcp-late", mode=mode, extra=MCP_MERGED)
    faulty = probe(tmp_path / "faulty", "mcp-late", ("mcp-join",), mode=mode, extra=MCP_MERGED)
    assert clean["mcp-tools"].verdict == "pass", clean["mcp-tools"]
    assert faulty["mcp-tools"].verdict == "fail", faulty["mcp-tools"]
    assert "joined the list" in faulty["mcp-tools"].summary


@pytest.mark.slow  # a fake harness through a three-turn scenario
def test_a_harness_that_never_connects_the_server_makes_the_mcp_checks_errors(
    tmp_path: Path,
) -> None:
    checks = probe(tmp_path, "mcp-late", args=())
    assert checks["mcp-tools"].verdict == "error", checks["mcp-tools"]
    assert "never connected to the probe's MCP server" in checks["mcp-tools"].summary
    assert checks["tools-fixed"].verdict == "error", checks["tools-fixed"]


@pytest.mark.slow  # a fake harness through a three-turn scenario
def test_a_command_the_harness_ignores_makes_its_checks_errors(tmp_path: Path) -> None:
    ignored = {"commands": {"plan_mode": {"args": ["--ignored-flag"]}}}
    plan = probe(tmp_path / "plan", "plan-mode", extra=ignored)
    assert plan["tools-fixed"].verdict == "error", plan["tools-fixed"]
    assert "never told of plan mode" in plan["tools-fixed"].summary
    ignored = {"commands": {"model_switch": {"args": ["--ignored-flag"]}}}
    switch = probe(tmp_path / "switch", "model-switch", extra=ignored)
    assert switch["params-stable"].verdict == "error", switch["params-stable"]
    assert "never reached the wire" in switch["params-stable"].summary
    unknown = {"commands": {"compact": {"message": "/summarise"}}}
    compact = probe(tmp_path / "compact", "compact", extra=unknown)
    assert compact["compact-turn"].verdict == "error", compact["compact-turn"]
    assert "as the person's message" in compact["compact-turn"].summary


@pytest.mark.slow  # two fake harnesses through a three-turn scenario
def test_a_summary_asked_for_twice_is_counted_and_each_request_judged(tmp_path: Path) -> None:
    clean = probe(tmp_path / "clean", "compact")
    twice = probe(tmp_path / "twice", "compact", ("compact-twice",))
    assert clean["compact-turn"].verdict == "pass", clean["compact-turn"]
    assert len(clean["compact-turn"].figures["compaction_requests"]) == 1
    # The repeat re-sends the loop's prefix and the same prompt: pfx.compact.turn holds for
    # each request, and the summary says it was asked for twice.
    assert twice["compact-turn"].verdict == "pass", twice["compact-turn"]
    first, second = twice["compact-turn"].figures["compaction_requests"]
    assert second == first + 1
    assert "asked for 2 times" in twice["compact-turn"].summary
    # The history starts over after the last of them, in both.
    for checks in (clean, twice):
        assert checks["compact-after"].verdict == "pass", checks["compact-after"]
    assert twice["compact-after"].figures["request"] > second


@pytest.mark.slow  # four fake harnesses through a two- or three-turn scenario
def test_a_command_may_leave_a_flag_out_and_set_the_turns_environment(tmp_path: Path) -> None:
    # The fake refuses --plan beside --auto: the turn's process must leave the drive's out.
    left_out = {"commands": {"plan_mode": {"args": ["--plan"], "without": ["--auto"]}}}
    plan = probe(tmp_path / "without", "plan-mode", extra=left_out, args=("--auto",))
    assert plan["tools-fixed"].verdict == "pass", plan["tools-fixed"]
    kept = probe(tmp_path / "kept", "plan-mode", extra=PLAN, args=("--auto",))
    assert kept["tools-fixed"].verdict == "error", kept["tools-fixed"]
    # The fake reads its model from FAKE_MODEL when no flag names one.
    by_env = {"commands": {"model_switch": {"env": {"FAKE_MODEL": "mock-model-2"}}}}
    switch = probe(tmp_path / "env", "model-switch", extra=by_env)
    assert switch["params-stable"].figures["switched"] == ["model mock-model → mock-model-2"]
    unread = {"commands": {"model_switch": {"env": {"OTHER_MODEL": "mock-model-2"}}}}
    ignored = probe(tmp_path / "unread", "model-switch", extra=unread)
    assert ignored["params-stable"].verdict == "error", ignored["params-stable"]
    assert "never reached the wire" in ignored["params-stable"].summary


@pytest.mark.slow  # two fake harnesses through a two-turn scenario, each in one process
def test_a_line_is_a_message_of_its_own_in_one_process(tmp_path: Path) -> None:
    switch = {"commands": {"model_switch": {"line": "/model mock-model-2"}}}
    checks = probe(tmp_path / "line", "model-switch", mode="one-process", extra=switch)
    assert checks["params-stable"].verdict == "pass", checks["params-stable"]
    assert checks["params-stable"].figures["switched"] == ["model mock-model → mock-model-2"]
    # A command the harness does not know goes to the model as the person's text.
    typo = {"commands": {"model_switch": {"line": "/modle mock-model-2"}}}
    unknown = probe(tmp_path / "typo", "model-switch", mode="one-process", extra=typo)
    assert unknown["params-stable"].verdict == "error", unknown["params-stable"]


def test_a_left_out_run_is_taken_out_once_and_in_order() -> None:
    scenario = load_scenario("plan-mode")
    entered = Command(args=("--plan",), without=("-m", "a"))
    profile = replace(load_profile("claude-code"), commands={"plan_mode": entered})
    turn = scenario.turns[1]
    assert command_argv(profile, scenario, turn, ["x", "-m", "a", "{args}", "-m", "a"]) == [
        "x",
        "--plan",
        "-m",
        "a",
    ]
    assert command_argv(profile, scenario, turn, ["x", "a", "-m", "m"]) == [
        "x",
        "--plan",
        "a",
        "-m",
        "m",
    ]


@pytest.mark.parametrize(
    ("command", "pointer", "message"),
    [
        ({"args": ["--plan"], "without": ["--absent"]}, "/commands/plan_mode/without", "neither"),
        ({"message": "/plan", "args": ["--plan"]}, "/commands/plan_mode", "one way"),
        ({"line": "x", "env": {"A": "b"}}, "/commands/plan_mode/env", "goes with `args`"),
    ],
)
def test_a_command_that_cannot_be_entered_is_refused_at_its_place(
    tmp_path: Path, command: dict[str, Any], pointer: str, message: str
) -> None:
    path = fake_profile(tmp_path, extra={"commands": {"plan_mode": command}})
    with pytest.raises(ProbeDataError) as raised:
        load_profile(str(path))
    text = str(raised.value)
    assert pointer in text and message in text, text
    assert f"{path}:" in text and text.split(f"{path}:")[1].split(":")[0].isdigit(), text


@pytest.mark.slow  # a fake harness through a two-turn scenario
def test_the_switch_the_scenario_asked_for_is_no_params_fault(tmp_path: Path) -> None:
    checks = probe(tmp_path, "model-switch")
    assert checks["params-stable"].verdict == "pass", checks["params-stable"]
    assert checks["params-stable"].figures["switched"] == ["model mock-model → mock-model-2"]


@pytest.mark.parametrize(
    ("scenario", "why"),
    [
        ("instructions-edited", "names no instruction file"),
        ("mcp-late", "told of an MCP server"),
        ("plan-mode", "commands.plan_mode"),
        ("model-switch", "commands.model_switch"),
        ("compact", "commands.compact"),
    ],
)
def test_a_profile_without_the_way_in_plays_nothing_and_every_check_says_why(
    tmp_path: Path, scenario: str, why: str
) -> None:
    run = run_fake(tmp_path, "chat", scenario, extra={}, args=())
    assert run.not_played is not None and why in run.not_played
    assert run.sessions == []  # no harness process was started
    checks = {c.id: c for c in judge_run(run).checks}
    assert {c.verdict for c in checks.values()} == {"not-testable"}, checks
    judged = ("system-once", "tools-fixed", "history-prefix", "usage-shown", "params-stable")
    for check_id in judged:
        assert checks[check_id].summary == f"not played: {run.not_played}", checks[check_id]


def test_a_scenario_is_played_when_the_profile_can_cause_one_of_its_changes_or_it_does_more(
    tmp_path: Path,
) -> None:
    bare = load_profile(str(fake_profile(tmp_path, "chat")))
    with_plan = replace(bare, commands={"plan_mode": Command(args=("--plan",))})
    both = write_scenario(tmp_path, _plan_and_compact())
    assert unplayable(bare, load_scenario("plan-mode")) is not None
    assert unplayable(with_plan, load_scenario("plan-mode")) is None
    assert unplayable(with_plan, load_scenario(both)) is None  # plan mode it can enter
    assert unplayable(bare, load_scenario(both)) is not None
    for scenario in ("basic", "long-session", "midnight", "two-days", "crash-mid-call"):
        assert unplayable(bare, load_scenario(scenario)) is None, scenario
    killed = write_scenario(tmp_path, _plan_and_compact(kill=True))
    assert unplayable(bare, load_scenario(killed)) is None  # its crash is still worth judging


def _plan_and_compact(kill: bool = False) -> dict[str, Any]:
    plan: dict[str, Any] = {
        "user": "Plan it.",
        "command": "plan_mode",
        "steps": [{"bash": "wc -l A.txt"}, {"text": "Planned."}],
    }
    if kill:
        plan.update(new_process=True, kill_after_call_s=3)
    return {
        "name": "plan-and-compact-kill" if kill else "plan-and-compact",
        "description": "plan mode on turn 2, /compact on turn 3",
        "files": {"A.txt": {"lines": 3, "template": "line {n}"}},
        "turns": [
            {"user": "Read A.txt.", "steps": [{"read": "A.txt"}, {"text": "Read."}]},
            plan,
            {"user": "Compact.", "command": "compact", "steps": [{"text": "Summary."}]},
            {"user": "Go on.", "new_process": kill, "steps": [{"text": "Going on."}]},
        ],
    }


@pytest.mark.slow  # thirty turns of a fake harness in one process
def test_a_long_session_reads_its_prefix_from_the_cache(tmp_path: Path) -> None:
    run = run_fake(tmp_path / "clean", "chat", "long-session", mode="stream-json")
    checks = {c.id: c for c in judge_run(run).checks}
    assert checks["history-prefix"].figures["pairs"] == 119
    broken = run_fake(
        tmp_path / "faulty", "chat", "long-session", mode="stream-json", faults=("rebuilt-prompt",)
    )
    # The remade prompt differs at its end: every request of the faulty run reads the same part
    # before the changed line and no more, less than any later request of the clean one reads.
    faulty_reads, clean_reads = _reads(broken), _reads(run)
    assert len(faulty_reads) > 30 and len(clean_reads) > 30
    assert len(set(faulty_reads[1:])) == 1, faulty_reads
    assert faulty_reads[1] < min(clean_reads[1:]), (faulty_reads, clean_reads)


def _reads(run: ProbeRun) -> list[int]:
    """The cached tokens the mock reported for each request of the run's session."""
    return [int(e["usage"]["cached"]) for e in run.sessions[0].entries if "usage" in e]


def test_the_bundled_scenarios_of_the_changes_load() -> None:
    assert load_scenario("compact").compact_turn() == 1
    assert load_scenario("mcp-late").mcp_tools == ("lantern_alpha", "lantern_beta", "lantern_gamma")
    edited = load_scenario("instructions-edited")
    assert [t.edit_instructions is not None for t in edited.turns] == [False, True, True]
    assert len(load_scenario("long-session").turns) == 30


@pytest.mark.parametrize(
    ("turns", "extra", "message"),
    [
        (
            [{"user": "a", "steps": [{"text": "b"}], "edit_instructions": "x"}],
            {"instructions": "y"},
            "the first turn",
        ),
        (
            [
                {"user": "a", "steps": [{"text": "b"}]},
                {"user": "c", "steps": [{"text": "d"}], "edit_instructions": "x"},
            ],
            {},
            "no `instructions`",
        ),
        (
            [
                {"user": "a", "steps": [{"text": "b"}]},
                {"user": "c", "steps": [{"text": "d"}], "command": "compact"},
            ],
            {},
            "a later turn",
        ),
        (
            [
                {"user": "a", "steps": [{"text": "b"}]},
                {"user": "c", "steps": [{"read": "A.txt"}], "command": "compact"},
                {"user": "e", "steps": [{"text": "f"}]},
            ],
            {},
            "its summary",
        ),
    ],
)
def test_a_scenario_whose_change_cannot_be_played_is_refused_with_its_place(
    tmp_path: Path, turns: list[dict[str, Any]], extra: dict[str, Any], message: str
) -> None:
    path = write_scenario(tmp_path, {"name": "bad", "description": "d", "turns": turns, **extra})
    with pytest.raises(ProbeDataError) as raised:
        load_scenario(path)
    assert message in str(raised.value) and "/turns/" in str(raised.value)


def test_the_mcp_arguments_go_only_to_a_scenario_with_the_server() -> None:
    profile = load_profile("claude-code")
    command = list(profile.drive.first)
    assert command_argv(profile, load_scenario("basic"), None, command) == command
    with_server = command_argv(profile, load_scenario("mcp-late"), None, command)
    assert with_server[:3] == ["claude", "--mcp-config", "{work}/.probe-mcp.json"]


def test_the_arguments_of_a_command_go_where_the_drive_says() -> None:
    scenario = load_scenario("plan-mode")
    profile = replace(
        load_profile("claude-code"), commands={"plan_mode": Command(args=("--plan",))}
    )
    assert command_argv(profile, scenario, scenario.turns[1], ["x", "{args}", "m"]) == [
        "x",
        "--plan",
        "m",
    ]
    assert command_argv(profile, scenario, scenario.turns[0], ["x", "{args}", "m"]) == ["x", "m"]
