"""OpenAI Responses: `…/responses`.

The request: `tools`, `instructions` and the leading system and developer items, then every
other input item (a message's content blocks; a call, its output or a reasoning item one unit
each). The answer: a `response` body, or the events from `response.created` to
`response.completed`; usage in `input_tokens` and `input_tokens_details`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxconf.cache.canonical import canonical_text
from ctxconf.cache.request import Section
from ctxconf.cache.units import Parts, content_blocks, dicts, mapping

from . import wire
from .answers import MODEL, Event, Reply, Tokens, arguments_json, chunks
from .openai_fields import SYSTEM_ROLES, input_details, openai_settings, wants_json
from .shape import ApiShape, Refusal, Routes
from .wire import Mention, Request, Tool, ToolResult

NAME = "openai-responses"
TITLE = "OpenAI Responses"
ROUTES: Routes = (("/responses", "answer"),)
PROVIDERS = ("openai", "llamacpp")  # the first is the one it is played under by default

# --- the request, as the mock and the checks see it -------------------------------------------

_ASSISTANT_ITEMS = ("function_call", "reasoning", "custom_tool_call", "local_shell_call")
_CALLS = ("function_call", "custom_tool_call", "local_shell_call")


def _items(raw: Any) -> list[Mapping[str, Any]]:
    """The input's items: a string input is one user message."""
    return wire.dicts(raw) if isinstance(raw, list) else [{"role": "user", "content": raw or ""}]


def _mentions(index: int, m: Mapping[str, Any]) -> list[Mention]:
    kind = str(m.get("type", ""))
    if kind in _CALLS:
        arguments = m.get("arguments", m.get("input", m.get("action")))
        name = str(m.get("name", kind))
        return [Mention("call", index, str(m.get("call_id", "")), name, arguments)]
    if kind.endswith("_output"):
        return [
            Mention("result", index, str(m.get("call_id", "")), text=wire.text_of(m.get("output")))
        ]
    return []


def parse(body: Mapping[str, Any], stream: bool = False) -> Request:
    items = _items(body.get("input"))
    lead = wire.leading_system(items)
    system_items, rest = items[:lead], tuple(items[lead:])
    parts = [str(body["instructions"])] if isinstance(body.get("instructions"), str) else []
    parts += [wire.text_of(i.get("content")) for i in system_items]
    turns, in_run = 0, False
    for item in rest:  # a run of the model's items (a reasoning item, its calls) is one turn
        mine = item.get("type") in _ASSISTANT_ITEMS or item.get("role") == "assistant"
        turns += 1 if mine and not in_run else 0
        in_run = mine
    tools = tuple(
        Tool(str(t.get("name")), wire.as_mapping(t.get("parameters")), wire.description_of(t))
        for t in wire.dicts(body.get("tools"))
        if t.get("name")
    )
    results = tuple(
        ToolResult(str(i.get("call_id", "")), wire.text_of(i.get("output")))
        for i in rest
        if str(i.get("type", "")).endswith("_output")
    )
    users = tuple(wire.text_of(i.get("content")) for i in rest if i.get("role") == "user")
    text = body.get("text")
    return Request(
        shape=NAME,
        system="\n\n".join(parts) if parts else None,
        tools=tools,
        messages=rest,
        assistant_turns=turns,
        results=results,
        last_user_text=wire.user_text(users),
        user_texts=users,
        stream=bool(body.get("stream")),
        include_usage=True,
        wants_json=wants_json(text.get("format") if isinstance(text, Mapping) else None),
        history=wire.mentions(rest, _mentions),
    )


def _answered(items: list[Mapping[str, Any]], index: int) -> bool:
    """Whether the call at `index` has its output before the next message (other calls, their
    outputs and reasoning may stand between), or the input ends first."""
    call_id = items[index].get("call_id")
    for later in items[index + 1 :]:
        if str(later.get("type", "")).endswith("_output") and later.get("call_id") == call_id:
            return True
        if later.get("type") == "message" or "role" in later:
            return False
    return True


def refuse(body: Mapping[str, Any]) -> Refusal | None:
    """The API names the first call whose output does not follow it; the wording follows its
    observed error."""
    items = _items(body.get("input"))
    for index, item in enumerate(items):
        if item.get("type") in _CALLS and not _answered(items, index):
            call_id = str(item.get("call_id", ""))
            text = f"No tool output found for function call {call_id}."
            error = {"message": text, "type": "invalid_request_error", "param": "input"}
            return Refusal(400, {"error": {**error, "code": None}}, text)
    return None


# --- the request, as a provider's cache sees it ------------------------------------------------

_TEXT_TYPES = ("input_text", "output_text")


def _block(block: Any) -> Any:
    """An `input_text` or `output_text` block reads as a text block: the same tokens."""
    if isinstance(block, Mapping) and block.get("type") in _TEXT_TYPES:
        return {**block, "type": "text"}
    return block


def _item_role(item: Mapping[str, Any]) -> str:
    if isinstance(item.get("role"), str):
        return str(item["role"])
    return "tool" if str(item.get("type", "")).endswith("_output") else "assistant"


def read_cache(body: Mapping[str, Any]) -> Parts:
    parts = Parts()
    for index, tool in enumerate(dicts(body.get("tools"))):
        name = tool.get("name") or tool.get("type")
        parts.add_tool(
            f"tools.{index}", tool, name, tool.get("description"), tool.get("parameters")
        )
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        parts.add("system", "instructions", {"type": "text", "text": instructions}, role="system")
    raw = body.get("input")
    items = dicts(raw) if isinstance(raw, list) else [{"role": "user", "content": raw or ""}]
    in_system = True
    for index, item in enumerate(items):
        role = _item_role(item)
        in_system = in_system and role in SYSTEM_ROLES
        section: Section = "system" if in_system else "messages"
        path = f"input.{index}" if isinstance(raw, list) else "input"
        if "content" in item and item.get("type", "message") == "message":
            header = {k: v for k, v in item.items() if k not in ("content", "type")}
            blocks = content_blocks(item.get("content"), path + ".content", _block)
            parts.add_message(section, path, index, role, header, blocks)
        else:
            parts.add(section, path, item, role=role, message=index)
    reasoning = dict(mapping(body.get("reasoning")))
    effort = reasoning.pop("effort", None)
    parts.params.update(
        thinking=canonical_text(reasoning or None),
        effort=canonical_text(effort),
        tool_choice=canonical_text(body.get("tool_choice")),
        prompt_cache_key=canonical_text(body.get("prompt_cache_key")),
    )
    parts.settings = openai_settings(body)
    return parts


# --- the answer ------------------------------------------------------------------------------


def _item(reply: Reply, rid: str) -> dict[str, Any]:
    if reply.tool:
        return {
            "type": "function_call",
            "id": f"fc_{rid}",
            "call_id": reply.call_id,
            "name": reply.tool,
            "arguments": arguments_json(reply),
            "status": "completed",
        }
    return {
        "type": "message",
        "id": f"msg_{rid}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
    }


def _response(t: Tokens | None, rid: str, created: int, status: str, output: list[Any]) -> Any:
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
            "input_tokens_details": input_details(t),
            "output_tokens": t.output,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": t.input_total + t.output,
        },
    }


def body(reply: Reply, t: Tokens, rid: str, created: int) -> dict[str, Any]:
    answer: dict[str, Any] = _response(t, rid, created, "completed", [_item(reply, rid)])
    return answer


def _call_events(item: dict[str, Any]) -> list[dict[str, Any]]:
    at = {"item_id": item["id"], "output_index": 0}
    added = {"type": "response.output_item.added", "output_index": 0}
    out = [{**added, "item": {**item, "arguments": "", "status": "in_progress"}}]
    for part in chunks(item["arguments"]):
        out.append({"type": "response.function_call_arguments.delta", **at, "delta": part})
    out.append(
        {"type": "response.function_call_arguments.done", **at, "arguments": item["arguments"]}
    )
    return out


def _text_events(item: dict[str, Any], text: str) -> list[dict[str, Any]]:
    at = {"item_id": item["id"], "output_index": 0, "content_index": 0}
    added = {"type": "response.output_item.added", "output_index": 0}
    empty = {"type": "output_text", "text": "", "annotations": []}
    out = [
        {**added, "item": {**item, "content": [], "status": "in_progress"}},
        {"type": "response.content_part.added", **at, "part": empty},
    ]
    for part in chunks(text):
        out.append({"type": "response.output_text.delta", **at, "delta": part, "logprobs": []})
    out.append({"type": "response.output_text.done", **at, "text": text, "logprobs": []})
    out.append({"type": "response.content_part.done", **at, "part": item["content"][0]})
    return out


def events(reply: Reply, t: Tokens, rid: str, created: int, include_usage: bool) -> list[Event]:
    item = _item(reply, rid)
    started = _response(None, rid, created, "in_progress", [])
    raw: list[dict[str, Any]] = [
        {"type": "response.created", "response": started},
        {"type": "response.in_progress", "response": started},
    ]
    raw += _call_events(item) if reply.tool else _text_events(item, reply.text)
    raw.append({"type": "response.output_item.done", "output_index": 0, "item": item})
    done = _response(t, rid, created, "completed", [item])
    raw.append({"type": "response.completed", "response": done})
    return [Event({**e, "sequence_number": n}, e["type"]) for n, e in enumerate(raw)]


SHAPE = ApiShape(NAME, TITLE, ROUTES, PROVIDERS, parse, read_cache, body, events, refuse)
