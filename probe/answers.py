"""The mock's answers in each API shape: one reply (a text or one tool call) and its usage, as a
JSON body or as the events of a stream, with the usage in the shape's own fields."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .wire import Shape

MODEL = "mock-model"
TEXT_DELTA_CHARS = 40


@dataclass(frozen=True)
class Reply:
    """A text answer, or a call of `tool` with `arguments` (the call's id is `call_id`)."""

    text: str = ""
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    call_id: str = ""


@dataclass(frozen=True)
class Tokens:
    """The simulated count of a request: its input, how much of it was read from the cache,
    the output, and how much was written to the cache (of it, for an hour)."""

    input_total: int
    cached: int
    output: int
    written: int = 0
    written_1h: int = 0


@dataclass(frozen=True)
class Event:
    data: dict[str, Any] | str  # "[DONE]" for Chat Completions' end
    name: str | None = None


def _chunks(text: str) -> list[str]:
    return [text[i : i + TEXT_DELTA_CHARS] for i in range(0, len(text), TEXT_DELTA_CHARS)] or [""]


def _arguments(reply: Reply) -> str:
    # Compact, as models emit them (and JSON.stringify writes them): a harness that parses a
    # call's arguments and writes them back must not differ from the mock's bytes by a space.
    return json.dumps(reply.arguments or {}, separators=(",", ":"), ensure_ascii=False)


# --- OpenAI Chat Completions ---------------------------------------------------------------


def _input_details(t: Tokens) -> dict[str, Any]:
    # `cache_write_tokens` beside the read, as OpenAI's breakpoint mode (GPT-5.6) reports it.
    return {"cached_tokens": t.cached, **({"cache_write_tokens": t.written} if t.written else {})}


def _chat_usage(t: Tokens) -> dict[str, Any]:
    return {
        "prompt_tokens": t.input_total,
        "completion_tokens": t.output,
        "total_tokens": t.input_total + t.output,
        "prompt_tokens_details": _input_details(t),
        "completion_tokens_details": {"reasoning_tokens": 0},
    }


def chat_body(reply: Reply, t: Tokens, rid: str, created: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool:
        message["tool_calls"] = [
            {
                "id": reply.call_id,
                "type": "function",
                "function": {"name": reply.tool, "arguments": _arguments(reply)},
            }
        ]
    return {
        "id": rid,
        "object": "chat.completion",
        "created": created,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.tool else "stop",
                "logprobs": None,
            }
        ],
        "usage": _chat_usage(t),
    }


def chat_events(
    reply: Reply, t: Tokens, rid: str, created: int, include_usage: bool
) -> list[Event]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> Event:
        data: dict[str, Any] = {
            "id": rid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": MODEL,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        }
        if include_usage:
            data["usage"] = None
        return Event(data)

    events = [chunk({"role": "assistant", "content": ""})]
    if reply.tool:
        call = {"index": 0, "id": reply.call_id, "type": "function"}
        events.append(
            chunk({"tool_calls": [{**call, "function": {"name": reply.tool, "arguments": ""}}]})
        )
        for part in _chunks(_arguments(reply)):
            events.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": part}}]}))
    else:
        events.extend(chunk({"content": part}) for part in _chunks(reply.text))
    events.append(chunk({}, "tool_calls" if reply.tool else "stop"))
    if include_usage:
        events.append(
            Event(
                {
                    "id": rid,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": MODEL,
                    "choices": [],
                    "usage": _chat_usage(t),
                }
            )
        )
    events.append(Event("[DONE]"))
    return events


# --- OpenAI Responses ----------------------------------------------------------------------


def _responses_item(reply: Reply, rid: str) -> dict[str, Any]:
    if reply.tool:
        return {
            "type": "function_call",
            "id": f"fc_{rid}",
            "call_id": reply.call_id,
            "name": reply.tool,
            "arguments": _arguments(reply),
            "status": "completed",
        }
    return {
        "type": "message",
        "id": f"msg_{rid}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
    }


def responses_body(reply: Reply, t: Tokens, rid: str, created: int) -> dict[str, Any]:
    return _response(reply, t, rid, created, "completed", [_responses_item(reply, rid)])


def _response(
    reply: Reply, t: Tokens | None, rid: str, created: int, status: str, output: list[Any]
) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "response",
        "created_at": created,
        "status": status,
        "model": MODEL,
        "output": output,
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
        "usage": None
        if t is None
        else {
            "input_tokens": t.input_total,
            "input_tokens_details": _input_details(t),
            "output_tokens": t.output,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": t.input_total + t.output,
        },
    }


def responses_events(reply: Reply, t: Tokens, rid: str, created: int) -> list[Event]:
    item = _responses_item(reply, rid)
    raw: list[dict[str, Any]] = [
        {
            "type": "response.created",
            "response": _response(reply, None, rid, created, "in_progress", []),
        },
        {
            "type": "response.in_progress",
            "response": _response(reply, None, rid, created, "in_progress", []),
        },
    ]
    if reply.tool:
        raw.append(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "arguments": "", "status": "in_progress"},
            }
        )
        for part in _chunks(item["arguments"]):
            raw.append(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "delta": part,
                }
            )
        raw.append(
            {
                "type": "response.function_call_arguments.done",
                "item_id": item["id"],
                "output_index": 0,
                "arguments": item["arguments"],
            }
        )
    else:
        empty = {"type": "output_text", "text": "", "annotations": []}
        raw.append(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "content": [], "status": "in_progress"},
            }
        )
        raw.append(
            {
                "type": "response.content_part.added",
                "item_id": item["id"],
                "output_index": 0,
                "content_index": 0,
                "part": empty,
            }
        )
        for part in _chunks(reply.text):
            raw.append(
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": 0,
                    "delta": part,
                    "logprobs": [],
                }
            )
        raw.append(
            {
                "type": "response.output_text.done",
                "item_id": item["id"],
                "output_index": 0,
                "content_index": 0,
                "text": reply.text,
                "logprobs": [],
            }
        )
        raw.append(
            {
                "type": "response.content_part.done",
                "item_id": item["id"],
                "output_index": 0,
                "content_index": 0,
                "part": item["content"][0],
            }
        )
    raw.append({"type": "response.output_item.done", "output_index": 0, "item": item})
    raw.append(
        {
            "type": "response.completed",
            "response": _response(reply, t, rid, created, "completed", [item]),
        }
    )
    return [Event({**e, "sequence_number": n}, e["type"]) for n, e in enumerate(raw)]


# --- Anthropic Messages --------------------------------------------------------------------


def _anthropic_usage(t: Tokens, output: int) -> dict[str, Any]:
    # input_tokens is only the part neither read nor written, as Anthropic counts it.
    return {
        "input_tokens": t.input_total - t.cached - t.written,
        "cache_read_input_tokens": t.cached,
        "cache_creation_input_tokens": t.written,
        "cache_creation": {
            "ephemeral_5m_input_tokens": t.written - t.written_1h,
            "ephemeral_1h_input_tokens": t.written_1h,
        },
        "output_tokens": output,
    }


def _anthropic_block(reply: Reply) -> dict[str, Any]:
    if reply.tool:
        return {
            "type": "tool_use",
            "id": reply.call_id,
            "name": reply.tool,
            "input": reply.arguments or {},
        }
    return {"type": "text", "text": reply.text}


def anthropic_body(reply: Reply, t: Tokens, rid: str) -> dict[str, Any]:
    return {
        "id": rid,
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [_anthropic_block(reply)],
        "stop_reason": "tool_use" if reply.tool else "end_turn",
        "stop_sequence": None,
        "usage": _anthropic_usage(t, t.output),
    }


def anthropic_events(reply: Reply, t: Tokens, rid: str) -> list[Event]:
    start = {
        **anthropic_body(reply, t, rid),
        "content": [],
        "stop_reason": None,
        "usage": _anthropic_usage(t, 1),
    }
    events = [Event({"type": "message_start", "message": start}, "message_start")]
    if reply.tool:
        block = {**_anthropic_block(reply), "input": {}}
        deltas = [
            {"type": "input_json_delta", "partial_json": p} for p in _chunks(_arguments(reply))
        ]
    else:
        block = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": p} for p in _chunks(reply.text)]
    events.append(
        Event(
            {"type": "content_block_start", "index": 0, "content_block": block},
            "content_block_start",
        )
    )
    events.extend(
        Event({"type": "content_block_delta", "index": 0, "delta": d}, "content_block_delta")
        for d in deltas
    )
    events.append(Event({"type": "content_block_stop", "index": 0}, "content_block_stop"))
    stop = "tool_use" if reply.tool else "end_turn"
    events.append(
        Event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": _anthropic_usage(t, t.output),
            },
            "message_delta",
        )
    )
    events.append(Event({"type": "message_stop"}, "message_stop"))
    return events


# --- Gemini --------------------------------------------------------------------------------


def gemini_body(reply: Reply, t: Tokens) -> dict[str, Any]:
    if reply.tool:
        part: dict[str, Any] = {"functionCall": {"name": reply.tool, "args": reply.arguments or {}}}
    else:
        part = {"text": reply.text}
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": t.input_total,
            "cachedContentTokenCount": t.cached,
            "candidatesTokenCount": t.output,
            "totalTokenCount": t.input_total + t.output,
        },
        "modelVersion": MODEL,
    }


def body(shape: Shape, reply: Reply, t: Tokens, rid: str, created: int) -> dict[str, Any]:
    if shape == "openai-chat":
        return chat_body(reply, t, rid, created)
    if shape == "openai-responses":
        return responses_body(reply, t, rid, created)
    if shape == "anthropic":
        return anthropic_body(reply, t, rid)
    return gemini_body(reply, t)


def events(
    shape: Shape, reply: Reply, t: Tokens, rid: str, created: int, include_usage: bool
) -> list[Event]:
    if shape == "openai-chat":
        return chat_events(reply, t, rid, created, include_usage)
    if shape == "openai-responses":
        return responses_events(reply, t, rid, created)
    if shape == "anthropic":
        return anthropic_events(reply, t, rid)
    return [Event(gemini_body(reply, t))]


def encode(event: Event) -> bytes:
    data = event.data if isinstance(event.data, str) else json.dumps(event.data)
    head = f"event: {event.name}\n" if event.name else ""
    return f"{head}data: {data}\n\n".encode()


__all__ = ["MODEL", "Event", "Reply", "Tokens", "body", "encode", "events"]
