"""Request bodies as the harnesses send them, one builder per API shape, and texts of an exact
length so that each unit's bytes can be counted by hand.

Sizes of the canonical units (tests/shapes/test_reading.py pins them), for texts of L characters:
Anthropic: a system block 25 + L; a user message's first text block 40 + L (a string content
too), an assistant's 45 + L; a tool_use block 46 + id + input + name (20 more as a message's
first); a tool_result 52 + content + id (15 more as a message's first).
"""

from __future__ import annotations

from typing import Any

SECRET = "sk-ant-api03-SECRETSECRETSECRET"


def text(length: int, word: str = "x") -> str:
    """Exactly `length` characters: `word` and a space, repeated and cut."""
    unit = word + " "
    return (unit * (length // len(unit) + 1))[:length]


def mark(ttl: str | None = None) -> dict[str, Any]:
    return {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}


def block(body: str, ttl: str | None = None, marked: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "text", "text": body}
    if marked or ttl:
        out["cache_control"] = mark(ttl)
    return out


def user(*blocks: dict[str, Any] | str) -> dict[str, Any]:
    content = blocks[0] if len(blocks) == 1 and isinstance(blocks[0], str) else list(blocks)
    return {"role": "user", "content": content}


def assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def tool_use(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def tool_result(call_id: str, content: str, marked: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": content}
    if marked:
        out["cache_control"] = mark()
    return out


def claude(
    system: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    model: str = "claude-sonnet-4-5",
    **extra: Any,
) -> dict[str, Any]:
    """An Anthropic Messages body the way Claude Code sends one: streamed, system blocks, the
    tools, the messages."""
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": 32000,
        "stream": True,
        "system": system,
        "messages": messages,
        "metadata": {"user_id": "user_probe"},
    }
    if tools is not None:
        body["tools"] = tools
    return {**body, **extra}


def anthropic_tool(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "description": description, "input_schema": schema}


def chat(
    system: str, messages: list[dict[str, Any]], model: str = "gpt-5.4", **extra: Any
) -> dict[str, Any]:
    """An OpenAI Chat Completions body the way opencode or pi send one: the system prompt as the
    first message, streamed with usage."""
    return {
        "model": model,
        "messages": [{"role": "system", "content": system}, *messages],
        "stream": True,
        "stream_options": {"include_usage": True},
        **extra,
    }


def chat_tool(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": schema},
    }


def responses(
    instructions: str, items: list[dict[str, Any]], model: str = "gpt-5.4", **extra: Any
) -> dict[str, Any]:
    """An OpenAI Responses body the way Codex sends one."""
    return {
        "model": model,
        "instructions": instructions,
        "input": items,
        "stream": True,
        "store": False,
        "parallel_tool_calls": False,
        **extra,
    }


def gemini(system: str, contents: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A Gemini generateContent body the way gemini-cli sends one (the model is in the URL)."""
    return {
        "systemInstruction": {"role": "user", "parts": [{"text": system}]},
        "contents": contents,
        "generationConfig": {"temperature": 0},
        **extra,
    }


__all__ = [
    "SECRET",
    "anthropic_tool",
    "assistant",
    "block",
    "chat",
    "chat_tool",
    "claude",
    "gemini",
    "mark",
    "responses",
    "text",
    "tool_result",
    "tool_use",
    "user",
]
