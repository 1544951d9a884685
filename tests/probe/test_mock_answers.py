"""The mock answers as each provider does, as its official client reads it: the model asked
for (or the dated name the provider gives it), the answer's id in the provider's form, the
request's id in its header, and an answer of several blocks (a text, then two calls), whole and
streamed; a stream paced between its events where the script says."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxconf.probe.scenario import Step
from ctxconf.probe.server import MockServer, Script, read_log

openai = pytest.importorskip("openai", reason="the test extras install openai")
anthropic = pytest.importorskip("anthropic", reason="the test extras install anthropic")
genai = pytest.importorskip("google.genai", reason="the test extras install google-genai")

SAID = "I will read both files."
# One step: a text, then a read of A.txt and one of B.txt in the same answer.
STEPS = [Step("read", "A.txt", "read", SAID, (Step("read", "B.txt", None),))]
SERVED = {"claude-sonnet-4-5": "claude-sonnet-4-5-20250929"}
PATHS = [{"path": "/work/A.txt"}, {"path": "/work/B.txt"}]
READ_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}

ANTHROPIC_ID = re.compile(r"msg_01[0-9A-Za-z]{22}")
ANTHROPIC_REQUEST = re.compile(r"req_011C[0-9A-Za-z]{20}")
CHAT_ID = re.compile(r"chatcmpl-[0-9A-Za-z]{29}")
RESPONSES_ID = re.compile(r"resp_[0-9a-f]{48}")
OPENAI_REQUEST = re.compile(r"req_[0-9a-f]{32}")


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[MockServer]:
    script = Script(STEPS, "/work", served_models=SERVED)
    with MockServer(script, tmp_path / "log.jsonl") as server:
        yield server


def _answers(mock: MockServer) -> list[dict[str, Any]]:
    return [e for e in read_log(mock.model.log) if e["kind"] == "answer"]


# --- Anthropic Messages -----------------------------------------------------------------------

CLAUDE_TOOLS = [{"name": "read", "input_schema": READ_SCHEMA}]
GO = [{"role": "user", "content": "go"}]


def _claude(mock: MockServer) -> Any:
    return anthropic.Anthropic(base_url=mock.base_url, api_key="k", max_retries=0)


def _claude_blocks(message: Any) -> list[tuple[str, Any]]:
    return [
        (b.type, b.text if b.type == "text" else (b.name, b.input, b.id)) for b in message.content
    ]


def test_anthropic_names_the_dated_model_and_its_own_ids(mock: MockServer) -> None:
    with _claude(mock) as client:
        raw = client.messages.with_raw_response.create(
            model="claude-sonnet-4-5", max_tokens=100, messages=GO, tools=CLAUDE_TOOLS
        )
        message = raw.parse()
        with client.messages.stream(
            model="claude-opus-4-1", max_tokens=100, messages=GO, tools=CLAUDE_TOOLS
        ) as stream:
            streamed = stream.get_final_message()
            streamed_request = stream.response.headers["request-id"]
    assert message.model == "claude-sonnet-4-5-20250929"  # the profile's dated name
    assert streamed.model == "claude-opus-4-1"  # none given: the name asked
    assert ANTHROPIC_ID.fullmatch(message.id) and ANTHROPIC_ID.fullmatch(streamed.id)
    assert message.id != streamed.id
    assert ANTHROPIC_REQUEST.fullmatch(raw.headers["request-id"])
    assert message._request_id == raw.headers["request-id"]
    assert ANTHROPIC_REQUEST.fullmatch(streamed_request)
    calls = [("read", p, f"call_probe_0{'_1' if n else ''}") for n, p in enumerate(PATHS)]
    expected = [("text", SAID), *(("tool_use", c) for c in calls)]
    assert _claude_blocks(message) == _claude_blocks(streamed) == expected
    assert message.stop_reason == streamed.stop_reason == "tool_use"
    assert streamed.usage.output_tokens == message.usage.output_tokens == 10
    assert streamed.usage.input_tokens == message.usage.input_tokens
    logged = _answers(mock)
    assert [e["answer"]["id"] for e in logged] == [message.id, streamed.id]
    assert logged[0]["answer"]["model"] == "claude-sonnet-4-5-20250929"
    assert logged[0]["reply"]["calls"][1]["arguments"] == PATHS[1]


def test_anthropic_stream_carries_the_input_usage_first_and_the_output_last(
    mock: MockServer,
) -> None:
    with _claude(mock) as client:
        events = list(
            client.messages.create(
                model="claude-sonnet-4-5",
                max_tokens=100,
                messages=GO,
                tools=CLAUDE_TOOLS,
                stream=True,
            )
        )
    kinds = [e.type for e in events]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    start, delta = events[0].message.usage, events[-2].usage
    assert start.output_tokens == 1 and delta.output_tokens == 10
    assert start.input_tokens == delta.input_tokens
    assert [e.index for e in events if e.type == "content_block_start"] == [0, 1, 2]


# --- OpenAI Chat Completions ------------------------------------------------------------------

CHAT_TOOLS = [{"type": "function", "function": {"name": "read", "parameters": READ_SCHEMA}}]


def _openai(mock: MockServer) -> Any:
    return openai.OpenAI(base_url=mock.base_url + "/v1", api_key="k", max_retries=0)


def test_chat_names_the_model_asked_and_its_own_ids(mock: MockServer) -> None:
    with _openai(mock) as client:
        answer = client.chat.completions.create(model="gpt-4.1", messages=GO, tools=CHAT_TOOLS)
        chunks = list(
            client.chat.completions.create(
                model="gpt-4.1",
                messages=GO,
                tools=CHAT_TOOLS,
                stream=True,
                stream_options={"include_usage": True},
            )
        )
    assert answer.model == "gpt-4.1" and CHAT_ID.fullmatch(answer.id)
    assert answer._request_id is not None and OPENAI_REQUEST.fullmatch(answer._request_id)
    message = answer.choices[0].message
    assert message.content == SAID
    calls = message.tool_calls or []
    assert [json.loads(c.function.arguments) for c in calls] == PATHS
    assert [c.id for c in calls] == ["call_probe_0", "call_probe_0_1"]
    # Streamed: the text, each call by its index, then the usage chunk last, with no choice.
    assert {c.id for c in chunks} == {chunks[0].id} and chunks[0].model == "gpt-4.1"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == SAID
    arguments: dict[int, str] = {}
    for c in chunks:
        for call in (c.choices[0].delta.tool_calls or []) if c.choices else []:
            piece = call.function.arguments if call.function else None
            arguments[call.index] = arguments.get(call.index, "") + (piece or "")
    assert [json.loads(arguments[i]) for i in sorted(arguments)] == PATHS
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert all(c.usage is None for c in chunks[:-1])


# --- OpenAI Responses -------------------------------------------------------------------------

RESPONSES_TOOLS = [{"type": "function", "name": "read", "strict": False, "parameters": READ_SCHEMA}]


def _output(items: Any) -> list[tuple[str, Any]]:
    return [
        (i.type, i.content[0].text if i.type == "message" else json.loads(i.arguments))
        for i in items
    ]


def test_responses_names_the_model_asked_and_its_own_ids(mock: MockServer) -> None:
    with _openai(mock) as client:
        response = client.responses.create(model="gpt-5.6", input="go", tools=RESPONSES_TOOLS)
        events = list(
            client.responses.create(model="gpt-5.6", input="go", tools=RESPONSES_TOOLS, stream=True)
        )
    assert response.model == "gpt-5.6" and RESPONSES_ID.fullmatch(response.id)
    assert response._request_id is not None and OPENAI_REQUEST.fullmatch(response._request_id)
    expected = [("message", SAID), *(("function_call", p) for p in PATHS)]
    assert _output(response.output) == expected
    done = events[-1]
    assert done.type == "response.completed" and RESPONSES_ID.fullmatch(done.response.id)
    assert _output(done.response.output) == expected
    assert done.response.usage is not None and done.response.usage.input_tokens > 0
    # The usage comes with the completed response alone.
    assert all(e.response.usage is None for e in events if e.type == "response.created")
    added = [e.output_index for e in events if e.type == "response.output_item.added"]
    assert added == [0, 1, 2]


# --- Gemini -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_gemini_names_the_model_in_the_path_and_its_response_id(mock: MockServer) -> None:
    from google.genai import types

    declaration = types.FunctionDeclaration(name="read", parameters_json_schema=READ_SCHEMA)
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[declaration])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    with genai.Client(api_key="k", http_options={"base_url": mock.base_url}) as client:
        answer = client.models.generate_content(
            model="gemini-2.5-flash", contents="go", config=config
        )
        chunks = list(
            client.models.generate_content_stream(
                model="gemini-2.5-flash", contents="go", config=config
            )
        )
    assert answer.model_version == "gemini-2.5-flash"
    assert answer.response_id and len(answer.response_id) == 23
    assert answer.text == SAID
    assert [c.args for c in answer.function_calls or []] == PATHS
    # Streamed: the text in pieces, the calls whole in the last chunk, usage on every chunk.
    assert len({c.response_id for c in chunks}) == 1 and len(chunks) >= 2
    assert all(c.usage_metadata and c.usage_metadata.prompt_token_count for c in chunks)
    assert "".join(c.text or "" for c in chunks[:-1]) == SAID
    assert [c.args for c in chunks[-1].function_calls or []] == PATHS


# --- A paced stream ---------------------------------------------------------------------------


@pytest.mark.parametrize("gap", [0.05, 0.0])
def test_a_stream_is_paced_between_its_events_as_the_script_says(
    tmp_path: Path, gap: float
) -> None:
    waits: list[float] = []
    script = Script([Step("text", "word " * 200, None)], "/work", event_gap=gap)
    body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": GO,
            "tools": CLAUDE_TOOLS, "stream": True}  # fmt: skip
    with MockServer(script, tmp_path / "log.jsonl", sleep=waits.append) as server:
        connection = http.client.HTTPConnection(server.base_url.removeprefix("http://"))
        try:
            headers = {"Content-Type": "application/json", "x-api-key": "k"}
            connection.request("POST", "/v1/messages", json.dumps(body), headers)
            text = connection.getresponse().read().decode()
        finally:
            connection.close()
    events = [line for line in text.splitlines() if line.startswith("event: ")]
    assert len(events) > 10  # the text comes in many deltas
    # A wait before each event but the first, which goes out at once; none where no gap is set.
    assert waits == ([gap] * (len(events) - 1) if gap else [])
