"""The changes a scenario makes mid-session, as the driver plays them with a profile.

The instruction file is written before the run and edited by the mock just before it answers a
turn's last step, so that the edit falls between two turns in every drive mode (the answer is
logged with `edited`). The probe's MCP server (`mcp_server.py`) is told to the harness as the
profile's `mcp` says. A turn entered through a command is given the profile's message, its
arguments or its line. What a profile cannot do is said by `unsupported`, and the checks that
need it are `not-testable` with that reason; a scenario none of whose changes the profile can
cause is not played at all (`unplayable`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ctxconf.userfiles.atomic import write_text_atomic

from .config_merge import merged_config
from .isolation import Room
from .profile import Profile
from .scenario import Scenario, Turn

MCP_NAME = "probe"
ARGS = "{args}"  # where a drive command takes the extra arguments
MCP_SERVER = Path(__file__).with_name("mcp_server.py")
COMMAND_FIELDS = {
    "plan_mode": "plan mode",
    "model_switch": "a model switch",
    "compact": "compaction",
}


def substitute(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def mcp_values(scenario: Scenario, root: Path) -> dict[str, str]:
    """The placeholders of a profile's `mcp`: the server's name, program and arguments."""
    if not scenario.mcp_tools:
        return {}
    args = [
        str(MCP_SERVER),
        "--tools",
        ",".join(scenario.mcp_tools),
        "--ready",
        str(root / "mcp-ready"),
        "--log",
        str(root / "mcp-log.jsonl"),
        "--state",
        str(root / "mcp-starts"),
    ]
    # The _json forms are quoted strings (JSON's quoting, which TOML's basic strings and YAML's
    # double-quoted ones share): a path with a quote or a backslash stays one string of the file.
    return {
        "mcp_name": MCP_NAME,
        "mcp_command": sys.executable,
        "mcp_args": json.dumps(args),
        "mcp_name_json": json.dumps(MCP_NAME),
        "mcp_command_json": json.dumps(sys.executable),
    }


def write_instructions(profile: Profile, scenario: Scenario, work: Path) -> None:
    if profile.instructions_file and scenario.instructions is not None:
        target = work / profile.instructions_file
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(scenario.instructions, encoding="utf-8")


def script_edits(profile: Profile, scenario: Scenario, work: Path) -> dict[int, tuple[Path, str]]:
    """The mock's edits of the instruction file, by the step whose answer they come before:
    the last step of the turn before each edit."""
    if not profile.instructions_file:
        return {}
    target = work / profile.instructions_file
    return {
        scenario.first_step_of_turn(number) - 1: (target, turn.edit_instructions)
        for number, turn in enumerate(scenario.turns)
        if turn.edit_instructions is not None
    }


def write_mcp_config(
    profile: Profile, scenario: Scenario, room: Room, values: dict[str, str]
) -> None:
    """The file that tells the harness of the probe's MCP server: its content appended to the
    profile's own file of the same path (codex's config.toml holds its provider too), or its
    merge deep-merged into that file's data (kilo.json holds the provider and the servers)."""
    mcp = profile.mcp
    if mcp is None or mcp.file is None or not scenario.mcp_tools:
        return
    target = room.place_of(mcp.file)
    target.parent.mkdir(parents=True, exist_ok=True)
    if mcp.merge is not None:
        args = json.loads(values["mcp_args"])
        template = profile.files.get(mcp.file)
        text = merged_config(mcp.file, template, mcp.merge, values, args)
    else:
        before = target.read_text(encoding="utf-8") if target.is_file() else ""
        joint = "\n" if before and not before.endswith("\n") else ""
        text = before + joint + substitute(mcp.content, values)
    write_text_atomic(target, text)


def command_argv(
    profile: Profile, scenario: Scenario, turn: Turn | None, command: Sequence[str]
) -> list[str]:
    """A process's command: the MCP server's arguments and the turn's command's where the
    command holds the argument `{args}` (nothing there when there are none), else right after
    the program; the run of arguments the turn's command leaves out, out."""
    extra: list[str] = []
    if profile.mcp is not None and profile.mcp.args and scenario.mcp_tools:
        extra += profile.mcp.args
    if turn is not None and turn.command is not None:
        entered = profile.commands.get(turn.command)
        if entered is not None:
            extra += entered.args
            command = _without(command, entered.without)
    if ARGS in command:
        at = list(command).index(ARGS)
        return [*command[:at], *extra, *command[at + 1 :]]
    return [command[0], *extra, *command[1:]]


def _without(command: Sequence[str], run: Sequence[str]) -> Sequence[str]:
    """The command with the first run of `run` taken out (the profile's rules made sure the
    drive holds it; a command that does not is kept whole)."""
    width = len(run)
    for at in range(len(command) - width + 1) if width else ():
        if list(command[at : at + width]) == list(run):
            return [*command[:at], *command[at + width :]]
    return command


def command_message(profile: Profile, turn: Turn) -> str:
    """What the person types for a turn: the profile's command message, or the turn's text."""
    entered = profile.commands.get(turn.command) if turn.command else None
    if entered is None or entered.message is None:
        return turn.user
    return entered.message.replace("{message}", turn.user)


def command_env(profile: Profile, turn: Turn) -> dict[str, str]:
    """The environment variables the turn's command sets for its process (per-turn)."""
    entered = profile.commands.get(turn.command) if turn.command else None
    return {} if entered is None else dict(entered.env)


def command_line(profile: Profile, turn: Turn) -> str | None:
    entered = profile.commands.get(turn.command) if turn.command else None
    return None if entered is None else entered.line


def _command_problem(profile: Profile, command: str) -> str | None:
    entered = profile.commands.get(command)
    what = COMMAND_FIELDS[command]
    if entered is None:
        return f"the profile gives no way into {what} (commands.{command})"
    mode = profile.drive.mode
    if (entered.args or entered.without or entered.env) and mode != "per-turn":
        return (
            f"commands.{command} changes the arguments or environment of a turn's process, but"
            f" {mode} plays every turn in one process"
        )
    if entered.line is not None and mode not in ("stream-json", "one-process"):
        return (
            f"commands.{command} sends a line before the turn's message, which only stream-json"
            " and one-process (a message of its own) do"
        )
    if profile.plays_one_turn:
        return "the harness plays one task per run: there is no later turn to enter a command in"
    return None


def unplayable(profile: Profile, scenario: Scenario) -> str | None:
    """Why playing the scenario with this profile would measure nothing of what the scenario is
    for: it makes changes, the profile can cause none of them, and it neither moves the clock
    nor kills a call. Such a scenario is not played (a harness's session costs it seconds to
    minutes), and every check says why."""
    cannot = unsupported(profile, scenario)
    why = [cannot[need] for need in ("edit", "mcp") if need in cannot]
    if any(t.edit_instructions for t in scenario.turns) and "edit" not in cannot:
        return None
    if scenario.mcp_tools and "mcp" not in cannot:
        return None
    for command in scenario.commands():
        problem = _command_problem(profile, command)
        if problem is None:
            return None
        why.append(problem)
    if not why or scenario.killed_turn() is not None or any(t.clock for t in scenario.turns):
        return None
    if len({s.date() for s in scenario.sessions if s is not None}) >= 2:
        return None
    return why[0]


def unsupported(profile: Profile, scenario: Scenario) -> dict[str, str]:
    """Why the profile cannot cause each change the scenario makes, by the need it is."""
    out: dict[str, str] = {}
    if any(t.edit_instructions for t in scenario.turns):
        if not profile.instructions_file:
            out["edit"] = (
                "the profile names no instruction file the harness reads (instructions_file)"
            )
        elif profile.plays_one_turn:
            out["edit"] = "the harness plays one task per run: there is no turn after the edit"
    if scenario.mcp_tools and profile.mcp is None:
        out["mcp"] = "the profile does not say how the harness is told of an MCP server (mcp)"
    for command in scenario.commands():
        problem = _command_problem(profile, command)
        if problem is not None:
            out.setdefault("command", problem)
    return out


__all__ = [
    "MCP_NAME",
    "command_argv",
    "command_env",
    "command_line",
    "command_message",
    "mcp_values",
    "script_edits",
    "unplayable",
    "unsupported",
    "write_instructions",
    "write_mcp_config",
]
