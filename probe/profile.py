"""Harness profiles as data: how to point one harness at the mock and play a turn with it.

A profile is a YAML file checked against `probe/data/schemas/profile.schema.json`, then by
`profile_rules` for what a schema cannot say; the bundled ones live in `data/harnesses/`. A
problem in a user's file is named at its line:column. Strings in `files`, `env`, `setup` and the
commands may hold placeholders, replaced when a run starts: `{base_url}`, `{port}`, `{home}`,
`{work}`, `{message}`, `{python}`, `{profile_dir}` (the folder of the profile file), and in a
resume command `{last_session_id}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml

from ctxconf.shapes import SHAPES
from ctxconf.shapes.wire import Shape
from ctxconf.userfiles.document import SpecFileError, display
from ctxconf.userfiles.useryaml import load_user_yaml

from .errors import ProbeDataError
from .profile_rules import problems
from .schemas import Places, Problem, refuse, schema_problems
from .session_ids import SessionIdSource
from .tool_map import ToolMap, tool_maps

DriveMode = Literal["per-turn", "one-process", "stream-json", "stdin-script"]
ClockMode = Literal["faketime", "static", "self"]


@dataclass(frozen=True)
class UsageOutput:
    """Where the harness shows the cached tokens: a dotted key path (`*` any key) in the JSON
    it prints (`stdout`), or in a JSON file it writes (a path under the work folder, or under
    the home as `{home}/…`, glob patterns allowed: `usage_file`)."""

    key: str
    file: str | None = None


@dataclass(frozen=True)
class Drive:
    mode: DriveMode
    first: tuple[
        str, ...
    ]  # per-turn, stream-json, stdin-script: the command of the (first) process
    resume: tuple[str, ...] = ()  # per-turn: the command of every later turn
    message_line: str = ""  # stream-json: one turn's line; stdin-script: one turn's lines
    turn_done_key: str = "type"  # stream-json: a JSON line with key == value ends a turn
    turn_done_value: str = "result"
    script_end: str = ""  # stdin-script: the lines after the last turn
    script: str = ""  # stdin-script: the whole input, for a harness the turns do not fit


@dataclass(frozen=True)
class McpConfig:
    """How the harness is told of an MCP server: a file written before the run (its text
    appended to the profile's own file of that path, or `merge` deep-merged into that file's
    data), arguments added after the program, or both. Their strings may hold `{mcp_name}`,
    `{mcp_command}` and `{mcp_args}` (a JSON array; in `merge`, the list itself), and
    `{mcp_name_json}` and `{mcp_command_json}`, the two as quoted strings for a text `content`."""

    file: str | None = None  # home/PATH or work/PATH, as in `files`
    content: str = ""
    args: tuple[str, ...] = ()
    merge: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Command:
    """How a scenario's command is entered: a message sent in place of the turn's (a slash
    command; `{message}` is the turn's own text), arguments added after the program of the
    turn's process, a run of the drive's own left out of it (a flag that cannot be given twice,
    or that another excludes) and environment variables set for it (a harness that reads its
    model from one) — these three per-turn —, or a line written before the turn's message
    (stream-json)."""

    message: str | None = None
    args: tuple[str, ...] = ()
    line: str | None = None
    without: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    api: Shape
    drive: Drive
    version_seen: str | None
    version_command: tuple[str, ...]
    install: Mapping[str, str]
    files: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    usage_output: UsageOutput | None = None
    text_tool: str | None = None
    text_command: str | None = None
    clock: ClockMode = "faketime"
    clock_note: str = ""
    timeout: float = 180.0
    notes: str = ""
    source: Path | None = None
    # The profile's own tools for the steps, where a harness's tools are shaped unlike any
    # `mapping` knows; where a turn prints its session id; a command run before each session.
    tools: Mapping[str, ToolMap] = field(default_factory=dict)
    session_id: SessionIdSource | None = None
    setup: tuple[str, ...] = ()
    # What the scenarios that change a session mid-way need of the harness.
    instructions_file: str | None = None  # relative to the work folder
    mcp: McpConfig | None = None
    commands: Mapping[str, Command] = field(default_factory=dict)
    # The name the provider answers with for a model the harness asks for (a dated one).
    served_models: Mapping[str, str] = field(default_factory=dict)

    @property
    def plays_one_turn(self) -> bool:
        """A one-process harness whose command takes one message plays the first turn alone."""
        drive = self.drive
        return drive.mode == "one-process" and not any(
            a.startswith("{messages") for a in drive.first
        )


def _mcp(data: Any) -> McpConfig | None:
    if data is None:
        return None
    return McpConfig(
        data.get("file"), data.get("content", ""), tuple(data.get("args", ())), data.get("merge")
    )


def _commands(data: Mapping[str, Any]) -> dict[str, Command]:
    return {
        name: Command(
            spec.get("message"),
            tuple(spec.get("args", ())),
            spec.get("line"),
            tuple(spec.get("without", ())),
            dict(spec.get("env", {})),
        )
        for name, spec in data.items()
    }


def profile_from_data(
    data: Any, source: str, path: Path | None, places: Places | None = None
) -> Profile:
    """The profile in `data`, read from `source`; `places` says where a JSON pointer's value
    (or its key) stands in the file, for errors that name their line:column. Every problem is
    named at once: the schema's, else the registry's and the rules'."""
    found = schema_problems(data, "profile")
    if not found:
        if data["api"] not in SHAPES:  # the registry, not the schema, knows the shapes
            known = ", ".join(repr(name) for name in SHAPES)
            found.append(Problem("/api", f"{data['api']!r} is not one of {known}"))
        found += [Problem(pointer, problem) for pointer, problem in problems(data)]
    if found:
        refuse(found, source, places)
    drive = data["drive"]
    usage = data.get("usage_output")
    session_id = data.get("session_id")
    return Profile(
        name=data["name"],
        description=data["description"],
        api=data["api"],
        drive=Drive(
            mode=drive["mode"],
            first=tuple(drive["command"]),
            resume=tuple(drive.get("resume", ())),
            message_line=drive.get("message", ""),
            turn_done_key=drive.get("turn_done", {}).get("key", "type"),
            turn_done_value=drive.get("turn_done", {}).get("value", "result"),
            script_end=drive.get("end", ""),
            script=drive.get("script", ""),
        ),
        version_seen=data.get("version_seen"),
        version_command=tuple(data.get("version_command", ())),
        install=data.get("install", {}),
        files=data.get("files", {}),
        env=data.get("env", {}),
        usage_output=None if usage is None else UsageOutput(usage["key"], usage.get("file")),
        text_tool=data.get("text_tool"),
        text_command=data.get("text_command"),
        clock=data.get("clock", "faketime"),
        clock_note=data.get("clock_note", ""),
        timeout=float(data.get("timeout", 180)),
        notes=data.get("notes", ""),
        source=path,
        tools=tool_maps(data.get("tools", {})),
        session_id=None
        if session_id is None
        else SessionIdSource(session_id["pattern"], session_id.get("stream", "stdout")),
        setup=tuple(data.get("setup", ())),
        instructions_file=data.get("instructions_file"),
        mcp=_mcp(data.get("mcp")),
        commands=_commands(data.get("commands", {})),
        served_models=data.get("served_models", {}),
    )


def _harness_folder() -> Any:
    return resources.files("ctxconf.probe") / "data" / "harnesses"


def bundled_profiles() -> list[str]:
    names = (p.name for p in _harness_folder().iterdir())
    return sorted(n[: -len(".yaml")] for n in names if n.endswith(".yaml"))


def load_profile(name_or_path: str) -> Profile:
    """A bundled profile by harness name, or a profile file by path. A user's file goes through
    the project's one reader of user-written YAML, so it is bounded like any other."""
    if name_or_path in bundled_profiles():
        file = _harness_folder() / f"{name_or_path}.yaml"
        data = yaml.safe_load(file.read_text(encoding="utf-8"))  # shipped with the package
        return profile_from_data(data, f"harness {name_or_path}", None)
    path = Path(name_or_path)
    if not path.is_file():
        known = ", ".join(bundled_profiles())
        raise ProbeDataError(f"{name_or_path}: no such harness profile (bundled: {known})")
    try:
        document = load_user_yaml(path, "harness profile")
    except SpecFileError as error:
        raise ProbeDataError(error.message) from None
    return profile_from_data(document.data, display(path), path.resolve(), document)


__all__ = [
    "Command",
    "Drive",
    "McpConfig",
    "Profile",
    "UsageOutput",
    "bundled_profiles",
    "load_profile",
]
