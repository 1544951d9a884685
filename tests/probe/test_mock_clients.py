"""The mock's answers as each API's official client library reads them: streamed and not."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxconf.probe.scenario import Step
from ctxconf.probe.server import MockServer, Script, read_log

openai = pytest.importorskip("openai", reason="the test extras install openai")
anthropic = pytest.importorskip("anthropic", reason="the test extras install anthropic")
genai = pytest.importorskip("google.genai", reason="the test extras install google-genai")

STEPS = [
    Step("read", "A.txt", "read"),
    Step(
        "text",
        "All read, and it is long enough to need more than one delta of forty characters.",
        None,
    ),
]
READ_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[MockServer]:
    with MockServer(Script(STEPS, "/work"), tmp_path / "log.jsonl") as server:
        yield server


@pytest.fixture
def chat(mock: MockServer) -> Iterator[openai.OpenAI]:
    # Closed at the end: a pooled socket left for a later collection warns in another test.
    with _openai(mock, "sk-secret-chat") as client:
        yield client


@pytest.fixture
def claude(mock: MockServer) -> Iterator[anthropic.Anthropic]:
    with anthropic.Anthropic(
        base_url=mock.base_url, api_key="sk-ant-secret", max_retries=0
    ) as client:
        yield client


def _openai(mock: MockServer, key: str = "k") -> openai.OpenAI:
    return openai.OpenAI(base_url=mock.base_url + "/v1", api_key=key, max_retries=0)


CHAT_TOOLS = [{"type": "function", "function": {"name": "read", "parameters": READ_SCHEMA}}]


def test_chat_streamed_with_usage_gives_a_tool_call_then_the_usage(chat: openai.OpenAI) -> None:
    messages = [{"role": "system", "content": "You help."}, {"role": "user", "content": "go"}]
    stream = chat.chat.completions.create(
        model="mock-model",
        messages=messages,
        tools=CHAT_TOOLS,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    calls = [
        c.choices[0].delta.tool_calls for c in chunks if c.choices and c.choices[0].delta.tool_calls
    ]
    arguments = "".join(tc[0].function.arguments or "" for tc in calls)
    assert calls[0][0].function.name == "read"
    assert json.loads(arguments) == {"path": "/work/A.txt"}
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.prompt_tokens_details.cached_tokens == 0


def test_chat_streamed_without_usage_has_no_usage_chunk(chat: openai.OpenAI) -> None:
    messages = [{"role": "user", "content": "go"}]
    chunks = list(
        chat.chat.completions.create(model="m", messages=messages, tools=CHAT_TOOLS, stream=True)
    )
    assert all(c.usage is None for c in chunks)
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_chat_not_streamed_reports_the_shared_prefix_as_cached(chat: openai.OpenAI) -> None:
    client = chat
    # Over OpenAI's 1,024 tokens: what the second request shares is read, in 128-token steps.
    first = [{"role": "system", "content": "You help." * 600}, {"role": "user", "content": "go"}]
    opening = client.chat.completions.create(model="m", messages=first, tools=CHAT_TOOLS)
    assert opening.usage is not None and opening.usage.prompt_tokens_details is not None
    assert opening.usage.prompt_tokens_details.cached_tokens == 0
    call = {
        "id": "call_probe_0",
        "type": "function",
        "function": {"name": "read", "arguments": "{}"},
    }
    second = [
        *first,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_probe_0", "content": "text"},
    ]
    answer = client.chat.completions.create(model="m", messages=second, tools=CHAT_TOOLS)
    assert answer.choices[0].message.content == STEPS[1].value
    usage = answer.usage
    assert usage is not None and usage.prompt_tokens_details is not None
    cached = usage.prompt_tokens_details.cached_tokens or 0
    assert 1024 <= cached < usage.prompt_tokens and cached % 128 == 0
    assert cached <= opening.usage.prompt_tokens < usage.prompt_tokens


@pytest.mark.slow
def test_responses_stream_events_end_with_usage(mock: MockServer) -> None:
    with _openai(mock) as client:
        _responses_stream_events_end_with_usage(client)


def _responses_stream_events_end_with_usage(client: openai.OpenAI) -> None:
    tools = [
        {
            "type": "function",
            "name": "exec_command",
            "strict": False,
            "parameters": {
                "type": "object",
                "properties": {"cmd": {"type": "array", "items": {"type": "string"}}},
            },
        }
    ]
    events = list(client.responses.create(model="m", input="go", tools=tools, stream=True))
    done = next(e for e in events if e.type == "response.output_item.done")
    assert done.item.type == "function_call"
    assert json.loads(done.item.arguments) == {"cmd": ["bash", "-lc", "cat A.txt"]}
    assert events[-1].type == "response.completed"
    assert events[-1].response.usage.input_tokens_details.cached_tokens == 0


def test_anthropic_stream_and_body_and_count_tokens(claude: anthropic.Anthropic) -> None:
    client = claude
    tools = [
        {
            "name": "Read",
            "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}},
        }
    ]
    messages = [{"role": "user", "content": "go"}]
    with client.messages.stream(
        model="m", max_tokens=100, system="You help.", messages=messages, tools=tools
    ) as stream:
        final = stream.get_final_message()
    assert final.content[0].type == "tool_use" and final.content[0].input == {
        "file_path": "/work/A.txt"
    }
    assert final.usage.cache_read_input_tokens == 0  # no breakpoint, nothing cached
    assert final.usage.cache_creation_input_tokens == 0
    # A marked system prompt over the model's 1,024 tokens: written once, then read.
    system = [{"type": "text", "text": "You help. " * 600, "cache_control": {"type": "ephemeral"}}]
    bodies = [
        client.messages.create(
            model="claude-sonnet-4-5", max_tokens=100, system=system, messages=messages, tools=tools
        )
        for _ in range(2)
    ]
    written, read = bodies[0].usage, bodies[1].usage
    assert bodies[1].stop_reason == "tool_use"
    assert written.cache_read_input_tokens == 0 and (written.cache_creation_input_tokens or 0) > 0
    assert read.cache_read_input_tokens == written.cache_creation_input_tokens
    assert read.cache_creation_input_tokens == 0 and read.input_tokens == written.input_tokens
    assert written.cache_creation is not None
    assert written.cache_creation.ephemeral_5m_input_tokens == written.cache_creation_input_tokens
    count = client.messages.count_tokens(model="m", messages=messages)
    assert count.input_tokens > 0


def test_a_fifth_anthropic_breakpoint_is_the_apis_400(
    mock: MockServer, claude: anthropic.Anthropic
) -> None:
    client = claude
    mark = {"type": "ephemeral"}
    blocks = [{"type": "text", "text": f"part {n}", "cache_control": mark} for n in range(5)]
    with pytest.raises(anthropic.BadRequestError) as refused:
        client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=100,
            messages=[{"role": "user", "content": blocks}],
            tools=[{"name": "Read", "input_schema": {"type": "object"}}],
        )
    assert refused.value.status_code == 400
    assert refused.value.body == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "A maximum of 4 blocks with cache_control may be provided. Found 5.",
        },
    }
    assert [e["kind"] for e in read_log(mock.model.log)] == ["api-error"]


@pytest.mark.slow
def test_gemini_generate_stream_and_count(mock: MockServer) -> None:
    # Closed at the end: its sockets are not left for a later collection to find.
    with genai.Client(api_key="AIza-secret", http_options={"base_url": mock.base_url}) as client:
        from google.genai import types

        tool = types.Tool(
            function_declarations=[
                types.FunctionDeclaration(
                    name="read_file",
                    parameters_json_schema={
                        "type": "object",
                        "properties": {"absolute_path": {"type": "string"}},
                    },
                )
            ]
        )
        config = types.GenerateContentConfig(
            tools=[tool],
            system_instruction="You help.",
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        )
        answer = client.models.generate_content(
            model="gemini-2.5-flash", contents="go", config=config
        )
        assert answer.function_calls and answer.function_calls[0].args == {
            "absolute_path": "/work/A.txt"
        }
        chunks = list(
            client.models.generate_content_stream(
                model="gemini-2.5-flash", contents="go", config=config
            )
        )
        assert chunks[-1].usage_metadata is not None
        assert chunks[-1].usage_metadata.cached_content_token_count is not None
        assert client.models.count_tokens(model="gemini-2.5-flash", contents="go").total_tokens


def test_the_log_holds_bodies_and_no_secret(
    mock: MockServer, chat: openai.OpenAI, tmp_path: Path
) -> None:
    test_chat_streamed_without_usage_has_no_usage_chunk(chat)
    test_gemini_generate_stream_and_count(mock)
    text = (tmp_path / "log.jsonl").read_text()
    for secret in ("sk-secret-chat", "AIza-secret"):
        assert secret not in text
    entries = read_log(tmp_path / "log.jsonl")
    assert entries[0]["body"]["messages"] == [{"role": "user", "content": "go"}]
    assert any("alt=sse" in e["path"] for e in entries)


def test_responses_not_streamed_is_a_response_the_client_reads(mock: MockServer) -> None:
    with _openai(mock) as client:
        _responses_not_streamed_is_a_response_the_client_reads(client)


def _responses_not_streamed_is_a_response_the_client_reads(client: openai.OpenAI) -> None:
    tools = [{"type": "function", "name": "read", "strict": False, "parameters": READ_SCHEMA}]
    response = client.responses.create(model="m", instructions="You help.", input="go", tools=tools)
    call = response.output[0]
    assert call.type == "function_call" and json.loads(call.arguments) == {"path": "/work/A.txt"}
    assert response.usage is not None and response.usage.input_tokens > 0


def test_a_gzip_body_is_read_and_an_unknown_path_is_a_json_404(mock: MockServer) -> None:
    import gzip
    import urllib.error
    import urllib.request

    body = gzip.compress(json.dumps({"messages": [{"role": "user", "content": "go"}]}).encode())
    request = urllib.request.Request(
        mock.base_url + "/v1/chat/completions",
        data=body,
        headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
    )
    with urllib.request.urlopen(request) as response:
        assert json.load(response)["choices"][0]["message"]["content"] == "Probe session"
    try:
        urllib.request.urlopen(urllib.request.Request(mock.base_url + "/v1/nothing", data=b"{}"))
    except urllib.error.HTTPError as e:
        with e:
            assert e.code == 404 and json.load(e)["error"]["type"] == "not_found"
    else:
        raise AssertionError("an unknown path was answered")
