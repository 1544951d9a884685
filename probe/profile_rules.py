"""What a harness profile must hold that its JSON Schema cannot say, each problem at its place.

A tool template must name the step's file or command and no placeholder the step does not fill;
a session-id pattern must compile, with one group at most; `{last_session_id}` may stand only in
a resume command, and only beside a `session_id` that says where the id is found. A command is
entered one way (a message, arguments or a line), the arguments left out and the environment
going with arguments only; the run of arguments it leaves out must stand in the drive's command
or its resume, in that order. An `mcp.file` takes its `content` or its `merge`, one of the two,
and a file of `files` that a merge goes into must be JSON (YAML for a `.yaml` name) holding a
mapping, as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ctxconf.userfiles.jsonpos import escape

from .config_merge import ConfigTextError, parse_config
from .tool_map import template_problems

LAST_SESSION_ID = "{last_session_id}"


def _session_id_problems(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    source = data.get("session_id")
    if source is not None:
        try:
            groups = re.compile(source["pattern"]).groups
        except re.error as error:
            yield "/session_id/pattern", f"not a regular expression: {error}"
        else:
            if groups > 1:
                yield (
                    "/session_id/pattern",
                    f"{groups} groups: the id is the one group, or the whole match",
                )
    drive = data["drive"]
    for index, arg in enumerate(drive["command"]):
        if LAST_SESSION_ID in arg:
            yield (
                f"/drive/command/{index}",
                f"{LAST_SESSION_ID} in the first command: no turn has printed an id yet",
            )
    for index, arg in enumerate(data.get("setup", [])):
        if LAST_SESSION_ID in arg:
            yield f"/setup/{index}", f"{LAST_SESSION_ID} in the setup: no turn has run yet"
    if source is None:
        for index, arg in enumerate(drive.get("resume", [])):
            if LAST_SESSION_ID in arg:
                yield (
                    f"/drive/resume/{index}",
                    f"{LAST_SESSION_ID} needs `session_id`: where a turn's output shows the id",
                )


def _holds_run(argv: list[str], run: list[str]) -> bool:
    return any(argv[i : i + len(run)] == run for i in range(len(argv) - len(run) + 1))


def _command_problems(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    drive = data["drive"]
    for name, spec in data.get("commands", {}).items():
        ways = [key for key in ("message", "args", "line") if key in spec]
        if len(ways) > 1:
            yield f"/commands/{name}", f"{' and '.join(ways)}: a command is entered one way"
        else:
            for key in ("without", "env"):
                if key in spec and ways and ways != ["args"]:
                    yield (
                        f"/commands/{name}/{key}",
                        f"`{key}` goes with `args` (or alone), not with `{ways[0]}`",
                    )
        run = spec.get("without")
        if run and not any(_holds_run(drive.get(key, []), run) for key in ("command", "resume")):
            yield (
                f"/commands/{name}/without",
                f"{' '.join(run)!r} stands in neither drive.command nor drive.resume",
            )


def _mcp_problems(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    mcp = data.get("mcp")
    if mcp is None or "file" not in mcp:
        return
    if "content" in mcp and "merge" in mcp:
        yield "/mcp/merge", "both content and merge: the file is appended to or merged into"
        return
    if "content" not in mcp and "merge" not in mcp:
        yield "/mcp/file", "a file needs its content (appended) or a merge (merged into it)"
        return
    name = mcp["file"]
    template = data.get("files", {}).get(name)
    if "merge" in mcp and template is not None:
        try:
            parse_config(name, template)
        except ConfigTextError as error:
            yield f"/files/{escape(name)}", f"mcp.merge goes into this file, which is {error}"


def problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(JSON pointer, problem) for each rule a schema-valid profile breaks, in file order."""
    found: list[tuple[str, str]] = []
    for step, entry in data.get("tools", {}).items():
        found.extend(template_problems(step, entry["arguments"], f"/tools/{step}/arguments"))
    found.extend(_session_id_problems(data))
    found.extend(_command_problems(data))
    found.extend(_mcp_problems(data))
    return found


__all__ = ["LAST_SESSION_ID", "problems"]
