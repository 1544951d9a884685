"""A recorded request of each API shape read as the units a provider hashes: their order, their
canonical bytes and token estimates (counted by hand in the comments), their marks, the
parameters that fork a cache."""

from __future__ import annotations

from ctxconf.cache import CacheRequest, unit_tokens
from ctxconf.cache.request import DIAGNOSED, PARAMS
from ctxconf.shapes import read_request
from tests.cache.bodies import (
    assistant,
    block,
    chat,
    claude,
    gemini,
    responses,
    text,
    tool_result,
    tool_use,
    user,
)


def _rows(request: CacheRequest) -> list[tuple[str, str, str, int, int, str | None]]:
    return [(u.section, u.path, u.kind, len(u.data), u.tokens, u.ttl) for u in request.units]


def test_the_estimate_is_utf8_bytes_over_four_rounded_up() -> None:
    assert unit_tokens(b"") == 0
    assert unit_tokens(b"abcd") == 1
    assert unit_tokens(b"abcde") == 2  # 5 bytes: 1.25, rounded up
    assert unit_tokens("éééé".encode()) == 2  # 4 characters, but 8 bytes


def test_an_anthropic_body_is_tools_then_system_then_each_block_in_order() -> None:
    body = claude(
        system=[block("You are a coding agent.", marked=True)],
        tools=[{"name": "Read", "description": "Read a file.", "input_schema": {}}],
        messages=[
            user("Read A.txt"),
            assistant(block("Reading."), tool_use("t1", "Read", {"file_path": "A.txt"})),
            user(tool_result("t1", "one"), block("and go on", marked=True)),
        ],
    )
    request = read_request("anthropic", body, time=5.0)
    # tool: {"description":"…","input_schema":{},"name":"…"} is 50 bytes around a 12-character
    # description and a 4-character name: 62 bytes, 16 tokens;
    # system: 25 + 23 = 48 (12); user: 40 + 10 = 50 (13); assistant text: 45 + 8 = 53 (14);
    # tool_use: 46 + 2 + 21 + 4 = 73 (19); first tool_result: 15 + 52 + 3 + 2 = 72 (18); a
    # second text block: 25 + 9 = 34 (9).
    assert _rows(request) == [
        ("tools", "tools.0", "tool", 62, 16, None),
        ("system", "system.0", "text", 48, 12, "5m"),
        ("messages", "messages.0.content", "text", 50, 13, None),
        ("messages", "messages.1.content.0", "text", 53, 14, None),
        ("messages", "messages.1.content.1", "tool_use", 73, 19, None),
        ("messages", "messages.2.content.0", "tool_result", 72, 18, None),
        ("messages", "messages.2.content.1", "text", 34, 9, "5m"),
    ]
    assert request.tokens == 16 + 12 + 13 + 14 + 19 + 18 + 9
    assert (request.time, request.model, request.shape) == (5.0, "claude-sonnet-4-5", "anthropic")


def test_a_string_and_one_text_block_are_the_same_bytes_and_a_mark_is_no_byte() -> None:
    plain = read_request("anthropic", claude([block("S")], [user("hello")]))
    blocked = read_request(
        "anthropic", claude([block("S", marked=True)], [user(block("hello", ttl="1h"))])
    )
    assert [u.data for u in plain.units] == [u.data for u in blocked.units]
    assert [u.ttl for u in blocked.units] == ["5m", "1h"]


def test_envelope_keys_are_sorted_but_arguments_keep_their_order() -> None:
    def call(arguments: dict[str, object], reverse: bool) -> bytes:
        use = tool_use("t1", "Edit", arguments)
        if reverse:
            use = dict(reversed(list(use.items())))
        request = read_request("anthropic", claude([], [assistant(use)]))
        return request.units[0].data

    assert call({"a": 1, "b": 2}, reverse=False) == call({"a": 1, "b": 2}, reverse=True)
    assert call({"a": 1, "b": 2}, reverse=False) != call({"b": 2, "a": 1}, reverse=False)


def test_anthropic_parameters_and_automatic_caching() -> None:
    body = claude(
        [block("S")],
        [user("hi")],
        thinking={"type": "enabled", "budget_tokens": 2048},
        tool_choice={"type": "auto"},
        output_config={"effort": "high"},
        cache_control={"type": "ephemeral", "ttl": "1h"},
    )
    request = read_request("anthropic", body)
    assert {name: request.params[name] for name in PARAMS} == {
        "model": "claude-sonnet-4-5",
        "thinking": '{"budget_tokens":2048,"type":"enabled"}',
        "effort": '"high"',
        "tool_choice": '{"type":"auto"}',
        "prompt_cache_key": None,
        "images": "absent",
    }
    # What only the provider's diagnostics compare: the whole output_config, among others.
    assert {name: request.params[name] for name in DIAGNOSED} == {
        "context_management": None,
        "output_config": '{"effort":"high"}',
        "output_format": None,
        "service_tier": None,
        "text_format": None,
        "verbosity": None,
    }
    assert request.settings.auto_ttl == "1h"


def test_chat_system_messages_lead_and_calls_are_units_of_their_own() -> None:
    body = chat(
        "You are pi.",
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "go", "prompt_cache_breakpoint": {"mode": "explicit"}}
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "bash", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            {"role": "system", "content": "a reminder later on"},
        ],
        prompt_cache_key="session-1",
        reasoning_effort="low",
        prompt_cache_options={"mode": "explicit", "ttl": "30m"},
    )
    request = read_request("openai-chat", body)
    assert [(u.section, u.path, u.kind, u.role, u.breakpoint) for u in request.units] == [
        ("system", "messages.0.content", "text", "system", False),
        ("messages", "messages.1.content.0", "text", "user", True),
        ("messages", "messages.2.tool_calls.0", "tool_call", "assistant", False),
        ("messages", "messages.3.content", "text", "tool", False),
        ("messages", "messages.4.content", "text", "system", False),
    ]
    assert (request.params["prompt_cache_key"], request.params["effort"]) == (
        '"session-1"',
        '"low"',
    )
    assert (request.settings.mode, request.settings.retention) == ("explicit", "30m")


def test_responses_instructions_lead_and_input_text_reads_as_text() -> None:
    as_string = read_request("openai-responses", responses("Codex.", [user("fix it")]))
    as_parts = read_request(
        "openai-responses",
        responses(
            "Codex.",
            [
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "fix it"}],
                },
                {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": "done"},
            ],
            reasoning={"effort": "medium", "summary": "auto"},
        ),
    )
    assert [u.data for u in as_string.units] == [u.data for u in as_parts.units[:2]]
    assert [(u.path, u.kind, u.role) for u in as_parts.units] == [
        ("instructions", "text", "system"),
        ("input.0.content.0", "text", "user"),
        ("input.1", "function_call", "assistant"),
        ("input.2", "function_call_output", "tool"),
    ]
    assert (as_parts.params["effort"], as_parts.params["thinking"]) == (
        '"medium"',
        '{"summary":"auto"}',
    )


def test_gemini_declarations_system_parts_and_contents_with_the_model_from_the_url() -> None:
    body = gemini(
        "You are gemini-cli.",
        [
            {"role": "user", "parts": [{"text": "hi"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]},
        ],
        tools=[
            {"functionDeclarations": [{"name": "ls", "description": "List.", "parameters": {}}]}
        ],
        generationConfig={"thinkingConfig": {"thinkingBudget": 128}},
    )
    request = read_request("gemini", body, model="gemini-2.5-pro")
    assert [(u.section, u.path, u.kind) for u in request.units] == [
        ("tools", "tools.0.functionDeclarations.0", "tool"),
        ("system", "systemInstruction.parts.0", "text"),
        ("messages", "contents.0.parts.0", "text"),
        ("messages", "contents.1.parts.0", "functionCall"),
    ]
    assert (request.model, request.params["thinking"]) == (
        "gemini-2.5-pro",
        '{"thinkingBudget":128}',
    )
    assert [t.name for t in request.tools] == ["ls"]


def test_a_long_text_counts_every_byte() -> None:
    # A user message of a 4,000-character text is 40 + 4000 bytes: 1,010 tokens.
    request = read_request("anthropic", claude([], [user(text(4000))]))
    assert [u.tokens for u in request.units] == [1010]
