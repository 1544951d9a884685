"""The mock refuses, as each API does, a body whose tool result does not follow its call: a
resumed session's synthetic result put after the new user message, or no result at all."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxconf.probe.scenario import Step
from ctxconf.probe.server import MockServer, Script, read_log

TOOL = {"type": "object", "properties": {"command": {"type": "string"}}}
ASK, GO_ON, OUT = "Run it.", "Go on.", "Tool call aborted."


def anthropic(late: bool, result: bool = True) -> dict[str, Any]:
    call = {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}
    answer = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]}
    go_on = {"role": "user", "content": GO_ON}
    tail = ([go_on, answer] if late else [answer, go_on]) if result else [go_on]
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "tools": [{"name": "bash", "input_schema": TOOL}],
        "messages": [
            {"role": "user", "content": ASK},
            {"role": "assistant", "content": [call]},
            *tail,
        ],
    }


def chat(late: bool, result: bool = True) -> dict[str, Any]:
    call = {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
    answer = {"role": "tool", "tool_call_id": "call_1", "content": OUT}
    go_on = {"role": "user", "content": GO_ON}
    tail = ([go_on, answer] if late else [answer, go_on]) if result else [go_on]
    return {
        "model": "mock-model",
        "tools": [{"type": "function", "function": {"name": "bash", "parameters": TOOL}}],
        "messages": [
            {"role": "system", "content": "You help."},
            {"role": "user", "content": ASK},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            *tail,
        ],
    }


def responses(late: bool, result: bool = True) -> dict[str, Any]:
    call = {"type": "function_call", "call_id": "call_1", "name": "bash", "arguments": "{}"}
    answer = {"type": "function_call_output", "call_id": "call_1", "output": OUT}
    go_on = {"role": "user", "content": [{"type": "input_text", "text": GO_ON}]}
    tail = ([go_on, answer] if late else [answer, go_on]) if result else [go_on]
    return {
        "model": "mock-model",
        "tools": [{"type": "function", "name": "bash", "parameters": TOOL}],
        "input": [{"role": "user", "content": ASK}, call, *tail],
    }


def gemini(late: bool, result: bool = True) -> dict[str, Any]:
    call = {"functionCall": {"name": "bash", "args": {"command": "ls"}}}
    answer = {
        "role": "user",
        "parts": [{"functionResponse": {"name": "bash", "response": {"output": OUT}}}],
    }
    go_on = {"role": "user", "parts": [{"text": GO_ON}]}
    tail = ([go_on, answer] if late else [answer, go_on]) if result else [go_on]
    return {
        "tools": [{"functionDeclarations": [{"name": "bash", "parametersJsonSchema": TOOL}]}],
        "contents": [
            {"role": "user", "parts": [{"text": ASK}]},
            {"role": "model", "parts": [call]},
            *tail,
        ],
    }


ANTHROPIC_ERROR = {
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "messages.1: `tool_use` ids were found without `tool_result` blocks"
        " immediately after: toolu_1. Each `tool_use` block must have a corresponding"
        " `tool_result` block in the next message.",
    },
}
CHAT_ERROR = {
    "error": {
        "message": "An assistant message with 'tool_calls' must be followed by tool messages"
        " responding to each 'tool_call_id'. The following tool_call_ids did not have response"
        " messages: call_1",
        "type": "invalid_request_error",
        "param": "messages.[3].role",
        "code": None,
    }
}
RESPONSES_ERROR = {
    "error": {
        "message": "No tool output found for function call call_1.",
        "type": "invalid_request_error",
        "param": "input",
        "code": None,
    }
}
GEMINI_ERROR = {
    "error": {
        "code": 400,
        "message": "Please ensure that the number of function response parts is equal to the"
        " number of function call parts of the function call turn.",
        "status": "INVALID_ARGUMENT",
    }
}
SHAPES = [
    ("/v1/messages", anthropic, ANTHROPIC_ERROR),
    ("/v1/chat/completions", chat, CHAT_ERROR),
    ("/v1/responses", responses, RESPONSES_ERROR),
    ("/v1beta/models/gemini-2.5-flash:generateContent", gemini, GEMINI_ERROR),
]
IDS = ["anthropic", "chat", "responses", "gemini"]


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[MockServer]:
    steps = [Step("text", "Carrying on.", None)]
    with MockServer(Script(steps, "/work"), tmp_path / "log.jsonl") as server:
        yield server


def post(mock: MockServer, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    request = urllib.request.Request(
        mock.base_url + path, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        with refused:  # its socket closed now, not by a later collection in another test
            return refused.code, json.loads(refused.read())


@pytest.mark.parametrize(("path", "body", "error"), SHAPES, ids=IDS)
def test_a_result_after_the_next_user_message_is_the_apis_400(
    mock: MockServer, path: str, body: Any, error: dict[str, Any]
) -> None:
    assert post(mock, path, body(late=True)) == (400, error)
    [entry] = read_log(mock.model.log)
    assert (entry["kind"], entry["status"]) == ("api-error", 400)
    assert "cache" not in entry  # never played: the API reads nothing of a body it refuses


@pytest.mark.parametrize(("path", "body", "error"), SHAPES, ids=IDS)
def test_a_call_with_no_result_before_the_next_message_is_the_same_400(
    mock: MockServer, path: str, body: Any, error: dict[str, Any]
) -> None:
    status, _ = post(mock, path, body(late=False, result=False))
    assert status == 400


@pytest.mark.parametrize(("path", "body", "error"), SHAPES, ids=IDS)
def test_a_result_right_after_its_call_is_answered(
    mock: MockServer, path: str, body: Any, error: dict[str, Any]
) -> None:
    status, _ = post(mock, path, body(late=False))
    assert status == 200
    assert [e["kind"] for e in read_log(mock.model.log)] == ["answer"]
