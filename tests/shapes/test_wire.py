"""Requests of the four API shapes, seen the same way: system prompt, tools, messages."""

from __future__ import annotations

from ctxconf.shapes import parse_request
from ctxconf.shapes.wire import tool_calls


def test_a_system_message_later_in_the_history_is_a_message_not_the_prompt() -> None:
    body = {
        "messages": [
            {"role": "system", "content": "prompt"},
            {"role": "user", "content": "hi"},
            {"role": "system", "content": "No tool call detected."},
        ]
    }
    request = parse_request("openai-chat", body)
    assert request.system == "prompt"
    assert len(request.messages) == 2


def test_moving_cache_markers_and_one_text_block_are_not_a_rewrite() -> None:
    marked = {
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}],
            }
        ]
    }
    plain = {"messages": [{"role": "user", "content": "hi"}]}
    assert (
        parse_request("anthropic", marked).canonical_messages()
        == parse_request("anthropic", plain).canonical_messages()
    )


def test_responses_count_a_run_of_assistant_items_as_one_turn() -> None:
    body = {
        "instructions": "prompt",
        "input": [
            {"role": "developer", "content": "more prompt"},
            {"role": "user", "content": [{"type": "input_text", "text": "go"}]},
            {"type": "reasoning", "summary": []},
            {"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "out"},
            {"type": "function_call", "call_id": "c2", "name": "exec_command", "arguments": "{}"},
        ],
    }
    request = parse_request("openai-responses", body)
    assert request.system == "prompt\n\nmore prompt"
    assert request.assistant_turns == 2
    assert [(r.call_id, r.text) for r in request.results] == [("c1", "out")]


def test_gemini_tools_results_and_the_stream_flag() -> None:
    body = {
        "systemInstruction": {"parts": [{"text": "prompt"}]},
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "read_file", "parametersJsonSchema": {"type": "object"}}
                ]
            }
        ],
        "contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "read_file", "args": {}}}]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "read_file", "response": {"output": "text"}}}
                ],
            },
        ],
    }
    request = parse_request("gemini", body, stream=True)
    assert (request.system, request.tools[0].schema, request.assistant_turns) == (
        "prompt",
        {"type": "object"},
        1,
    )
    assert request.results[0].text == "text" and request.stream


def test_two_calls_of_the_same_name_without_ids_are_answered_in_order() -> None:
    call = {"functionCall": {"name": "run_shell_command", "args": {"command": "ls"}}}
    answer = {"functionResponse": {"name": "run_shell_command", "response": {"output": "a"}}}
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [call]},
            {"role": "user", "parts": [answer]},
            {"role": "model", "parts": [call]},
            {"role": "user", "parts": [{"text": "Go on."}]},
        ]
    }
    calls = tool_calls(parse_request("gemini", body))
    assert [(c.message, c.result) for c in calls] == [(1, "a"), (3, None)]


def test_a_result_answers_the_call_with_its_id_wherever_it_stands() -> None:
    body = {
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}},
                    {"id": "b", "type": "function", "function": {"name": "x", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "tool_call_id": "b", "content": "B"},
        ]
    }
    calls = tool_calls(parse_request("openai-chat", body))
    assert [(c.call_id, c.result) for c in calls] == [("a", None), ("b", "B")]
