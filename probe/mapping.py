"""An abstract step as a call of a tool the harness offers, chosen by name and JSON schema.

Harnesses name the same tools differently (`read`, `Read`, `read_file`, `view`; `bash`,
`shell`, `run_shell_command`, `exec_command`) and their arguments too (`path`, `file_path`,
`filePath`; a command as a string or an argv array). A read with no read tool becomes `cat PATH`
through the shell tool. Required arguments the step does not fill get neutral values.

A profile may name the harness's own tool for a step (`tool_map`): offered, it is called with
the profile's template and nothing added; not offered in a request, the step is mapped by name
as above.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ctxconf.shapes.answers import Reply
from ctxconf.shapes.wire import Tool

from .scenario import Step
from .tool_map import ToolMap

READ_TOOLS = ("read", "Read", "read_file", "view", "read_text_file", "file_read", "ReadFile")
SHELL_TOOLS = (
    "bash",
    "Bash",
    "shell",
    "run_shell_command",
    "exec_command",
    "execute_command",
    "run_command",
    "terminal",
    "local_shell",
    "Shell",
)
PATH_KEYS = (
    "file_path",
    "filePath",
    "filepath",
    "absolute_path",
    "path",
    "file",
    "filename",
    "target_file",
)
COMMAND_KEYS = ("command", "cmd", "commands", "script", "code")


def _find(tools: Sequence[Tool], names: Sequence[str]) -> Tool | None:
    by_name = {t.name: t for t in tools}
    for name in names:
        if name in by_name:
            return by_name[name]
    return None


def _properties(tool: Tool) -> Mapping[str, Any]:
    props = tool.schema.get("properties")
    return props if isinstance(props, Mapping) else {}


def _neutral(schema: Any) -> Any:
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    if isinstance(schema, Mapping) and "default" in schema:
        return schema["default"]
    if isinstance(schema, Mapping) and isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    return {
        "string": "probe",
        "boolean": False,
        "integer": 1,
        "number": 1,
        "array": [],
        "object": {},
    }.get(kind if isinstance(kind, str) else "string", "probe")


def _with_required(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    required = tool.schema.get("required")
    props = _properties(tool)
    for key in required if isinstance(required, list) else []:
        if isinstance(key, str) and key not in arguments:
            arguments[key] = _neutral(props.get(key))
    return arguments


def _read_call(tool: Tool, path: str, workdir: str) -> dict[str, Any]:
    props = _properties(tool)
    key = next((k for k in PATH_KEYS if k in props), "path")
    # Absolute paths are accepted by every read tool seen; some accept nothing else.
    return _with_required(tool, {key: _absolute(path, workdir)})


def _shell_call(tool: Tool, command: str) -> dict[str, Any]:
    props = _properties(tool)
    key = next((k for k in COMMAND_KEYS if k in props), "command")
    schema = props.get(key)
    as_argv = isinstance(schema, Mapping) and schema.get("type") == "array"
    return _with_required(tool, {key: ["bash", "-lc", command] if as_argv else command})


def _absolute(path: str, workdir: str) -> str:
    return f"{workdir.rstrip('/')}/{path}" if workdir else path


def _mapped(
    step: Step, tools: Sequence[Tool], workdir: str, tool_map: Mapping[str, ToolMap]
) -> tuple[str, dict[str, Any]] | None:
    """The profile's own tool for the step, with its arguments, when the request offers it."""
    own = tool_map.get(step.kind)
    if own is None or _find(tools, [own.name]) is None:
        return None
    if step.kind == "read":
        values = {"path": _absolute(step.value, workdir), "relative_path": step.value}
    else:
        values = {"command": step.value}
    return own.name, own.call(values)


def map_step(
    step: Step,
    tools: Sequence[Tool],
    workdir: str,
    call_id: str,
    text_tool: str | None = None,
    text_command: str | None = None,
    tool_map: Mapping[str, ToolMap] | None = None,
) -> Reply:
    """The reply that plays `step` with the tools offered: its call, with the text said before
    it and the further calls of the same answer (each a call of its own, `call_id` numbered),
    where the step has them."""
    reply = _map_one(step, tools, workdir, call_id, text_tool, text_command, tool_map)
    if reply.tool is None or not (step.say or step.more):
        return reply
    more = [
        _map_one(extra, tools, workdir, f"{call_id}_{n}", None, None, tool_map)
        for n, extra in enumerate(step.more, 1)
    ]
    calls = tuple(call for extra in more for call in extra.calls)
    return replace(reply, text=step.say or "", more=calls)


def _map_one(
    step: Step,
    tools: Sequence[Tool],
    workdir: str,
    call_id: str,
    text_tool: str | None = None,
    text_command: str | None = None,
    tool_map: Mapping[str, ToolMap] | None = None,
) -> Reply:
    """The reply that plays `step` with the tools offered; a text when no tool fits. A harness
    that ends a task only by a tool call gets `text_tool` called, or `text_command` run."""
    own_tools = tool_map or {}
    if step.kind == "text" and text_command:
        step = Step("bash", text_command, step.label)
    if step.kind in ("read", "bash"):
        mapped = _mapped(step, tools, workdir, own_tools)
        if mapped is not None:
            return Reply(tool=mapped[0], arguments=mapped[1], call_id=call_id)
    if step.kind == "read":
        read = _find(tools, READ_TOOLS)
        if read is not None:
            return Reply(
                tool=read.name, arguments=_read_call(read, step.value, workdir), call_id=call_id
            )
        step = Step("bash", f"cat {shlex.quote(step.value)}", step.label)
        mapped = _mapped(step, tools, workdir, own_tools)
        if mapped is not None:
            return Reply(tool=mapped[0], arguments=mapped[1], call_id=call_id)
    if step.kind == "bash":
        shell = _find(tools, SHELL_TOOLS)
        if shell is not None:
            return Reply(tool=shell.name, arguments=_shell_call(shell, step.value), call_id=call_id)
        return Reply(text=f"(no tool to run: {step.value})")
    finish = _find(tools, [text_tool]) if text_tool else None
    if finish is not None:
        return Reply(tool=finish.name, arguments=_with_required(finish, {}), call_id=call_id)
    return Reply(text=step.value)


__all__ = ["READ_TOOLS", "SHELL_TOOLS", "map_step"]
