"""An abstract step as a call of the tool a harness offers, by name and JSON schema."""

from __future__ import annotations

from typing import Any

import pytest

from ctxconf.probe.mapping import map_step
from ctxconf.probe.scenario import Step
from ctxconf.probe.tool_map import ToolMap
from ctxconf.shapes.wire import Tool


def _tool(name: str, **properties: Any) -> Tool:
    return Tool(name, {"type": "object", "properties": properties, "required": list(properties)})


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        (_tool("read", path={"type": "string"}), {"path": "/w/A.txt"}),
        (_tool("Read", file_path={"type": "string"}), {"file_path": "/w/A.txt"}),
        (_tool("read", filePath={"type": "string"}), {"filePath": "/w/A.txt"}),
        (_tool("read_file", absolute_path={"type": "string"}), {"absolute_path": "/w/A.txt"}),
    ],
    ids=["path", "file_path", "filePath", "absolute_path"],
)
def test_a_read_fills_the_path_argument_the_schema_names(
    tool: Tool, expected: dict[str, str]
) -> None:
    reply = map_step(Step("read", "A.txt", None), [tool], "/w", "c1")
    assert (reply.tool, reply.arguments, reply.call_id) == (tool.name, expected, "c1")


def test_a_command_is_a_string_or_an_argv_array_as_the_schema_says() -> None:
    text = map_step(
        Step("bash", "seq 1 3", None), [_tool("bash", command={"type": "string"})], "/w", "c"
    )
    argv = map_step(
        Step("bash", "seq 1 3", None), [_tool("exec_command", cmd={"type": "array"})], "/w", "c"
    )
    assert text.arguments == {"command": "seq 1 3"}
    assert argv.arguments == {"cmd": ["bash", "-lc", "seq 1 3"]}


def test_with_no_read_tool_a_read_goes_through_the_shell() -> None:
    reply = map_step(
        Step("read", "my file.txt", None), [_tool("shell", command={"type": "string"})], "/w", "c"
    )
    assert reply.arguments == {"command": "cat 'my file.txt'"}


def test_required_arguments_the_step_does_not_know_get_neutral_values() -> None:
    tool = _tool(
        "run_shell_command",
        command={"type": "string"},
        description={"type": "string"},
        is_background={"type": "boolean"},
    )
    reply = map_step(Step("bash", "ls", None), [tool], "/w", "c")
    assert reply.arguments == {"command": "ls", "description": "probe", "is_background": False}


def test_a_text_step_is_text_or_the_profiles_finishing_tool() -> None:
    done = _tool("complete")
    assert map_step(Step("text", "All done.", None), [done], "/w", "c").text == "All done."
    finish = map_step(Step("text", "All done.", None), [done], "/w", "c", text_tool="complete")
    assert finish.tool == "complete"


def test_with_no_tool_that_fits_the_step_is_a_text() -> None:
    reply = map_step(
        Step("bash", "ls", None), [_tool("websearch", q={"type": "string"})], "/w", "c"
    )
    assert reply.tool is None and "ls" in reply.text


def test_a_read_with_a_filepath_key_names_the_file() -> None:
    reply = map_step(Step("read", "A.txt", None), [_tool("Read", filepath={})], "/w", "c")
    assert reply.arguments == {"filepath": "/w/A.txt"}


# A profile's own tools: Cline's read_files and Open Interpreter's execute, by their templates.
OWN = {
    "read": ToolMap("read_files", {"files": [{"path": "{path}", "label": "{relative_path}"}]}),
    "bash": ToolMap("execute", {"language": "shell", "code": "{command}", "timeout": 30}),
}
OFFERED = [_tool("read_files", files={"type": "array"}), _tool("execute", code={}, language={})]


def test_a_profile_tool_is_called_with_its_template_filled_and_nothing_added() -> None:
    read = map_step(Step("read", "A.txt", None), OFFERED, "/w", "c1", tool_map=OWN)
    run = map_step(Step("bash", "seq 1 3", None), OFFERED, "/w", "c2", tool_map=OWN)
    assert (read.tool, read.arguments) == (
        "read_files",
        {"files": [{"path": "/w/A.txt", "label": "A.txt"}]},
    )
    assert (run.tool, run.arguments) == (
        "execute",
        {"language": "shell", "code": "seq 1 3", "timeout": 30},
    )


def test_without_the_profile_map_those_tools_are_not_played() -> None:
    reply = map_step(Step("read", "A.txt", None), OFFERED, "/w", "c")
    assert reply.tool is None and "no tool to run" in reply.text


def test_a_read_with_only_a_mapped_shell_is_cat_through_it() -> None:
    own = {"bash": OWN["bash"]}
    reply = map_step(Step("read", "A.txt", None), OFFERED[1:], "/w", "c", tool_map=own)
    assert (reply.tool, reply.arguments) == (
        "execute",
        {"language": "shell", "code": "cat A.txt", "timeout": 30},
    )


def test_a_text_command_goes_through_the_mapped_shell() -> None:
    reply = map_step(
        Step("text", "done", None), OFFERED, "/w", "c", text_command="echo END", tool_map=OWN
    )
    assert reply.tool == "execute" and reply.arguments and reply.arguments["code"] == "echo END"


def test_a_mapped_tool_the_request_does_not_offer_falls_back_to_the_names() -> None:
    offered = [_tool("bash", command={"type": "string"})]
    reply = map_step(Step("bash", "ls", None), offered, "/w", "c", tool_map=OWN)
    assert (reply.tool, reply.arguments) == ("bash", {"command": "ls"})


def test_a_step_may_say_a_text_first_and_make_further_calls_in_the_same_answer() -> None:
    tools = [_tool("read", path={"type": "string"}), _tool("bash", command={"type": "string"})]
    more = (Step("read", "B.txt", None), Step("bash", "ls", None))
    reply = map_step(Step("read", "A.txt", None, "Reading.", more), tools, "/w", "c1")
    assert reply.text == "Reading."
    calls = [(c.tool, c.arguments, c.call_id) for c in reply.calls]
    assert calls == [
        ("read", {"path": "/w/A.txt"}, "c1"),
        ("read", {"path": "/w/B.txt"}, "c1_1"),
        ("bash", {"command": "ls"}, "c1_2"),
    ]
    # A step that turns into a text (no tool fits) says its text alone.
    assert map_step(Step("bash", "ls", None, "Running.", more), [], "/w", "c1").calls == ()
