"""The mock's reasoning, as each provider gives it and as its official client reads it, whole
and streamed; what comes back checked as each API checks it, refused with its status and its
words; and a scenario asking for reasoning it cannot have, refused with its place."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxconf.probe.errors import ProbeDataError
from ctxconf.probe.scenario import Step, check_reasoning, scenario_from_data
from ctxconf.probe.server import MockServer, Script, read_log
from ctxconf.shapes.anthropic_thinking import BINDING_BETA
from ctxconf.shapes.reasoning import ReasoningOptions

openai = pytest.importorskip("openai", reason="the test extras install openai")
anthropic = pytest.importorskip("anthropic", reason="the test extras install anthropic")
genai = pytest.importorskip("google.genai", reason="the test extras install google-genai")

THINK = "I should read A.txt before I answer."
STEPS = [
    Step("read", "A.txt", None, think=THINK),
    Step("text", "Done.", None, think="All read."),
    Step("read", "B.txt", None, redacted=True),
]
READ_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
CLAUDE_TOOLS = [{"name": "read", "input_schema": READ_SCHEMA}]
GO = [{"role": "user", "content": "go"}]
THINKING = {"type": "adaptive"}


def _mock(
    tmp_path: Path,
    options: ReasoningOptions | None = None,
    steps: list[Step] | None = None,
    log: str = "log.jsonl",
) -> MockServer:
    script = Script(steps or STEPS, "/work", reasoning=options or ReasoningOptions())
    return MockServer(script, tmp_path / log)


def _said(refused: Any) -> str:
    """The API's own message, as its body carries it."""
    return str(refused.value.body["error"]["message"])


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[MockServer]:
    with _mock(tmp_path) as server:
        yield server


def post(mock: MockServer, path: str, body: dict[str, Any], **headers: str) -> tuple[int, Any]:
    request = urllib.request.Request(
        mock.base_url + path,
        json.dumps(body).encode(),
        {"Content-Type": "application/json", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        with refused:
            return refused.code, json.loads(refused.read())


# --- Anthropic --------------------------------------------------------------------------------


def _claude(mock: MockServer) -> Any:
    return anthropic.Anthropic(base_url=mock.base_url, api_key="k", max_retries=0)


def _turn(answer: list[dict[str, Any]], call_id: str = "call_probe_0") -> list[dict[str, Any]]:
    result = {"type": "tool_result", "tool_use_id": call_id, "content": "line 1"}
    return [*GO, {"role": "assistant", "content": answer}, {"role": "user", "content": [result]}]


def _claude_body(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-opus-4-6",
        "max_tokens": 100,
        "messages": messages,
        "tools": CLAUDE_TOOLS,
        "thinking": THINKING,
        **extra,
    }


def test_anthropic_thinks_first_and_signs_it_whole_and_streamed(mock: MockServer) -> None:
    with _claude(mock) as client:
        message = client.messages.create(**_claude_body(GO))
        with client.messages.stream(**_claude_body(GO)) as stream:
            kinds = [e.type for e in stream]
            streamed = stream.get_final_message()
    assert [b.type for b in message.content] == ["thinking", "tool_use"]
    assert message.content[0].thinking == THINK and message.content[0].signature
    assert [b.type for b in streamed.content] == ["thinking", "tool_use"]
    assert streamed.content[0].thinking == THINK and streamed.content[0].signature
    # The signature comes as its own delta, before the block stops.
    assert kinds.index("signature") < kinds.index("content_block_stop")
    logged = [e for e in read_log(mock.model.log) if e["kind"] == "answer"]
    assert logged[0]["thought"]["signature"] == message.content[0].signature


def test_anthropic_takes_its_thinking_back_and_refuses_it_changed(mock: MockServer) -> None:
    with _claude(mock) as client:
        message = client.messages.create(**_claude_body(GO))
        blocks = [b.model_dump(exclude_none=True) for b in message.content]
        again = client.messages.create(**_claude_body(_turn(blocks)))
        assert again.content[0].type == "thinking"
        forged = [{**blocks[0], "signature": blocks[0]["signature"][:-4] + "AAAA"}, blocks[1]]
        with pytest.raises(anthropic.BadRequestError) as refused:
            client.messages.create(**_claude_body(_turn(forged)))
        truncated = [{**blocks[0], "signature": blocks[0]["signature"][:10]}, blocks[1]]
        with pytest.raises(anthropic.BadRequestError) as cut:
            client.messages.create(**_claude_body(_turn(truncated)))
        rewritten = [{**blocks[0], "thinking": THINK + " "}, blocks[1]]
        with pytest.raises(anthropic.BadRequestError):
            client.messages.create(**_claude_body(_turn(rewritten)))
        with pytest.raises(anthropic.BadRequestError) as missing:
            client.messages.create(**_claude_body(_turn(blocks[1:])))
    words = "messages.1.content.0: Invalid `signature` in `thinking` block"
    assert refused.value.status_code == 400 and _said(refused) == words
    assert _said(cut) == words
    assert _said(missing).startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found"
        " `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a"
        " thinking block"
    )
    refusals = [e for e in read_log(mock.model.log) if e["kind"] == "api-error"]
    assert [e["reasoning"] for e in refusals] == [True] * 4


def test_another_sessions_signature_is_refused(tmp_path: Path) -> None:
    with _mock(tmp_path, log="one.jsonl") as first, _claude(first) as client:
        blocks = [
            b.model_dump(exclude_none=True)
            for b in client.messages.create(**_claude_body(GO)).content
        ]
    with _mock(tmp_path, log="two.jsonl") as second:
        status, body = post(second, "/v1/messages", _claude_body(_turn(blocks)))
    assert status == 400 and body["error"]["type"] == "invalid_request_error"


def test_anthropic_redacted_thinking_goes_back_as_it_came(tmp_path: Path) -> None:
    steps = [Step("read", "B.txt", None, redacted=True)]
    result = {"type": "tool_result", "tool_use_id": "call_probe_0", "content": "B"}
    with _mock(tmp_path, steps=steps) as mock, _claude(mock) as client:
        message = client.messages.create(**_claude_body(GO))
        with client.messages.stream(**_claude_body(GO)) as stream:
            streamed = stream.get_final_message()
        blocks = [b.model_dump(exclude_none=True) for b in message.content]
        assert [b["type"] for b in blocks] == ["redacted_thinking", "tool_use"]
        assert streamed.content[0].type == "redacted_thinking"
        back = [
            *GO,
            {"role": "assistant", "content": blocks},
            {"role": "user", "content": [result]},
        ]
        client.messages.create(**_claude_body(back))
        changed = [{**blocks[0], "data": blocks[0]["data"][1:]}, blocks[1]]
        back[1] = {"role": "assistant", "content": changed}
        with pytest.raises(anthropic.BadRequestError) as refused:
            client.messages.create(**_claude_body(back))
    assert _said(refused) == "messages.1.content.0: Invalid `data` in `redacted_thinking` block"


def test_block_binding_refuses_an_edited_history_or_drops_the_blocks(tmp_path: Path) -> None:
    with _mock(tmp_path, ReasoningOptions(binding=True)) as mock, _claude(mock) as client:
        blocks = [
            b.model_dump(exclude_none=True)
            for b in client.messages.create(**_claude_body(GO)).content
        ]
        client.messages.create(**_claude_body(_turn(blocks)))  # unedited: taken
        edited = _turn(blocks)
        edited[0] = {"role": "user", "content": "go, now"}
        with pytest.raises(anthropic.BadRequestError) as refused:
            client.messages.create(**_claude_body(edited))
        drop = {**THINKING, "block_binding": {"prefix_mismatch_behavior": "drop_block"}}
        with pytest.raises(anthropic.BadRequestError) as no_header:
            client.messages.create(**_claude_body(edited, thinking=drop))
        status, answer = post(
            mock,
            "/v1/messages",
            _claude_body(edited, thinking=drop),
            **{"anthropic-beta": BINDING_BETA},
        )
    assert _said(refused) == (
        "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a"
        " different conversation. Remove the block, or set"
        ' `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
    )
    assert BINDING_BETA in _said(no_header)
    assert status == 200
    assert answer["input_transformations"] == [
        {
            "type": "thinking_dropped",
            "path": "messages.1.content.0",
            "reason": "prefix_binding_mismatch",
        }
    ]


# --- OpenAI Responses -------------------------------------------------------------------------

RESPONSES_TOOLS = [{"type": "function", "name": "read", "strict": False, "parameters": READ_SCHEMA}]


def _openai(mock: MockServer) -> Any:
    return openai.OpenAI(base_url=mock.base_url + "/v1", api_key="k", max_retries=0)


def test_responses_reasoning_items_carry_encrypted_content(mock: MockServer) -> None:
    ask = {"model": "gpt-5.6", "input": "go", "tools": RESPONSES_TOOLS, "store": False}
    ask["reasoning"] = {"effort": "low", "summary": "auto"}
    with _openai(mock) as client:
        response = client.responses.create(**ask)
        events = list(client.responses.create(**ask, stream=True))
        stored = client.responses.create(**{**ask, "store": True})
        item = response.output[0]
        back = [
            {"role": "user", "content": "go"},
            item.model_dump(exclude_none=True),
            response.output[1].model_dump(exclude_none=True),
            {"type": "function_call_output", "call_id": "call_probe_0", "output": "line 1"},
        ]
        client.responses.create(**{**ask, "input": back})
        back[1] = {**back[1], "encrypted_content": back[1]["encrypted_content"][:-3]}
        with pytest.raises(openai.BadRequestError) as refused:
            client.responses.create(**{**ask, "input": back})
    assert item.type == "reasoning" and item.encrypted_content
    assert [s.text for s in item.summary] == [THINK]
    assert stored.output[0].type == "reasoning" and stored.output[0].encrypted_content is None
    done = events[-1].response
    assert done.output[0].type == "reasoning" and done.output[0].encrypted_content
    deltas = [e.delta for e in events if e.type == "response.reasoning_summary_text.delta"]
    assert "".join(deltas) == THINK
    assert refused.value.status_code == 400 and refused.value.code == "invalid_encrypted_content"
    assert "could not be verified" in refused.value.message


# --- Chat Completions -------------------------------------------------------------------------

CHAT_TOOLS = [{"type": "function", "function": {"name": "read", "parameters": READ_SCHEMA}}]


def test_chat_reasoning_content_for_a_deepseek_session(tmp_path: Path) -> None:
    with _mock(tmp_path, ReasoningOptions(chat="deepseek")) as mock, _openai(mock) as client:
        answer = client.chat.completions.create(model="deepseek-v4", messages=GO, tools=CHAT_TOOLS)
        chunks = list(
            client.chat.completions.create(
                model="deepseek-v4", messages=GO, tools=CHAT_TOOLS, stream=True
            )
        )
        message = answer.choices[0].message.model_dump(exclude_none=True)
        result = {"role": "tool", "tool_call_id": "call_probe_0", "content": "line 1"}
        client.chat.completions.create(
            model="deepseek-v4", messages=[*GO, message, result], tools=CHAT_TOOLS
        )
        bare = {k: v for k, v in message.items() if k != "reasoning_content"}
        with pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(
                model="deepseek-v4", messages=[*GO, bare, result], tools=CHAT_TOOLS
            )
    assert message["reasoning_content"] == THINK
    streamed = "".join(
        (c.choices[0].delta.model_extra or {}).get("reasoning_content") or ""
        for c in chunks
        if c.choices
    )
    assert streamed == THINK
    assert refused.value.message.endswith(
        "The `reasoning_content` in the thinking mode must be passed back to the API."
    )


def test_chat_gives_no_reasoning_unless_the_session_names_a_provider(mock: MockServer) -> None:
    with _openai(mock) as client:
        answer = client.chat.completions.create(model="gpt-4.1", messages=GO, tools=CHAT_TOOLS)
    assert "reasoning_content" not in (answer.choices[0].message.model_extra or {})


# --- Gemini -----------------------------------------------------------------------------------


def _gemini_body(contents: list[dict[str, Any]]) -> dict[str, Any]:
    declaration = {"name": "read", "parametersJsonSchema": READ_SCHEMA}
    return {
        "contents": contents,
        "tools": [{"functionDeclarations": [declaration]}],
        "generationConfig": {"thinkingConfig": {"includeThoughts": True}},
    }


@pytest.mark.slow
def test_gemini_thoughts_and_the_signature_on_the_first_call(mock: MockServer) -> None:
    from google.genai import types

    declaration = types.FunctionDeclaration(name="read", parameters_json_schema=READ_SCHEMA)
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[declaration])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        thinking_config=types.ThinkingConfig(include_thoughts=True),
    )
    with genai.Client(api_key="k", http_options={"base_url": mock.base_url}) as client:
        answer = client.models.generate_content(model="gemini-3-pro", contents="go", config=config)
        chunks = list(
            client.models.generate_content_stream(
                model="gemini-3-pro", contents="go", config=config
            )
        )
    parts = answer.candidates[0].content.parts
    assert parts[0].thought and parts[0].text == THINK
    assert parts[1].function_call and parts[1].thought_signature
    streamed = [p for c in chunks for p in c.candidates[0].content.parts]
    assert streamed[0].thought and any(p.thought_signature for p in streamed)


def test_gemini_3_refuses_a_current_call_without_its_signature(mock: MockServer) -> None:
    path = "/v1beta/models/gemini-3-pro:generateContent"
    status, answer = post(mock, path, _gemini_body([{"role": "user", "parts": [{"text": "go"}]}]))
    call = answer["candidates"][0]["content"]["parts"][1]
    result = {"role": "user", "parts": [{"functionResponse": {"name": "read", "response": {}}}]}
    kept = [{"role": "user", "parts": [{"text": "go"}]}, {"role": "model", "parts": [call]}, result]
    assert post(mock, path, _gemini_body(kept))[0] == 200
    bare = {"functionCall": call["functionCall"]}
    stripped = [kept[0], {"role": "model", "parts": [bare]}, result]
    status, refused = post(mock, path, _gemini_body(stripped))
    assert status == 400 and refused["error"]["status"] == "INVALID_ARGUMENT"
    assert refused["error"]["message"].startswith(
        "Function call is missing a thought_signature in functionCall parts."
    )
    assert "`default_api:read` , position 2" in refused["error"]["message"]
    # An older model takes it; the skip value passes on any.
    assert (
        post(mock, "/v1beta/models/gemini-2.5-flash:generateContent", _gemini_body(stripped))[0]
        == 200
    )
    skipped = [
        kept[0],
        {
            "role": "model",
            "parts": [{**bare, "thoughtSignature": "skip_thought_signature_validator"}],
        },
        result,
    ]
    assert post(mock, path, _gemini_body(skipped))[0] == 200
    forged = [kept[0], {"role": "model", "parts": [{**bare, "thoughtSignature": "AAAA"}]}, result]
    assert post(mock, path, _gemini_body(forged))[0] == 400


# --- Scenarios that ask for what they cannot have ---------------------------------------------


def _scenario(**extra: Any) -> dict[str, Any]:
    step: dict[str, Any] = {"read": "A.txt", "redacted": True}
    return {"name": "t", "description": "t", "turns": [{"user": "go", "steps": [step]}], **extra}


def test_an_unknown_chat_family_is_the_scenarios_error() -> None:
    with pytest.raises(ProbeDataError) as refused:
        scenario_from_data(_scenario(reasoning={"chat": "grok"}), "t.json")
    assert str(refused.value.message) == (
        "t.json: at /reasoning/chat: unknown reasoning family 'grok': one of deepseek, kimi, xai"
    )


@pytest.mark.parametrize("api", ["openai-responses", "openai-chat", "gemini"])
def test_redacted_reasoning_needs_anthropic(api: str) -> None:
    scenario = scenario_from_data(_scenario(), "t.json")
    check_reasoning(scenario, "anthropic")
    with pytest.raises(ProbeDataError, match=r"^scenario t: at /turns/0/steps/0/redacted: "):
        check_reasoning(scenario, api)
