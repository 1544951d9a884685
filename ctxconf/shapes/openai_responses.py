"""OpenAI Responses: `…/responses`.

The request: `tools`, `instructions` and the leading system and developer items, then every
other input item (a message's content blocks; a call, its output or a reasoning item one unit
each). The answer: a `response` body (a message item, then a `function_call` item per call), or
the events from `response.created` to `response.completed`; usage in `input_tokens` and
`input_tokens_details`, on `response.completed` alone; its id `resp_…`, the request's in the
`x-request-id` header. A request naming `prompt_cache_options.comparison_response_id` gets
`prompt_cache_diagnostics` on the completed response. A request that asks for reasoning gets a
`reasoning` item first, with its `encrypted_content` when the response is not stored
(`responses_reasoning.py`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ctxconf.cache.canonical import canonical_text
from ctxconf.cache.credentials import Headers
from ctxconf.cache.provider_diagnostics import DiagnosticsAsk
from ctxconf.cache.request import Section
from ctxconf.cache.units import Parts, content_blocks, dicts, mapping

from . import wire
from .answers import Answer, Event, arguments_json, chunks, token
from .openai_fields import (
    SYSTEM_ROLES,
    input_details,
    openai_request_id,
    openai_settings,
    wants_json,
)
from .responses_reasoning import REASONING
from .shape import ApiShape, Ids, Refusal, Routes
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
    text = mapping(body.get("text"))
    parts.params.update(
        thinking=canonical_text(reasoning or None),
        effort=canonical_text(effort),
        tool_choice=canonical_text(body.get("tool_choice")),
        prompt_cache_key=canonical_text(body.get("prompt_cache_key")),
        # Compared by the provider's diagnostics alone, each a reason of its own.
        service_tier=canonical_text(body.get("service_tier")),
        text_format=canonical_text(text.get("format")),
        verbosity=canonical_text(text.get("verbosity")),
    )
    parts.settings = openai_settings(body)
    return parts


# --- what the request asks of the provider's cache diagnostics ---------------------------------

_JSON_TYPES = {bool: "a boolean", int: "an integer", float: "a number", list: "an array"}


def _invalid_type(param: str, value: Any, expected: str) -> Refusal:
    got = "an object" if isinstance(value, Mapping) else _JSON_TYPES.get(type(value), "a string")
    text = f"Invalid type for '{param}': expected {expected}, but got {got} instead."
    error = {"message": text, "type": "invalid_request_error", "param": param}
    return Refusal(400, {"error": {**error, "code": "invalid_type"}}, text)


def diagnostics(body: Mapping[str, Any], headers: Headers) -> DiagnosticsAsk | Refusal | None:
    """`prompt_cache_options.comparison_response_id`: the response to compare with; a field of
    another type is the API's 400, as it words one. A request that names none asks nothing, yet
    its response can be compared with later."""
    nothing = DiagnosticsAsk("openai", False, None)
    options = body.get("prompt_cache_options")
    if options is None:
        return nothing
    if not isinstance(options, Mapping):
        return _invalid_type("prompt_cache_options", options, "an object")
    against = options.get("comparison_response_id")
    if against is None:
        return nothing
    if not isinstance(against, str):
        param = "prompt_cache_options.comparison_response_id"
        return _invalid_type(param, against, "a string")
    return DiagnosticsAsk("openai", True, against)


# --- the answer ------------------------------------------------------------------------------


def answer_id() -> str:
    return "resp_" + token(48, "0123456789abcdef")


def _item_id(prefix: str, answer: Answer, index: int) -> str:
    """An output item's id, the same in the body and in the events of one answer."""
    digest = hashlib.sha256(f"{answer.id}/{index}".encode()).hexdigest()
    return f"{prefix}_{digest[:48]}"


def _reasoning_item(answer: Answer) -> list[dict[str, Any]]:
    thought = answer.thought
    if thought is None:
        return []
    summary = [{"type": "summary_text", "text": thought.text}] if thought.asked.summary else []
    item: dict[str, Any] = {
        "type": "reasoning",
        "id": _item_id("rs", answer, 0),
        "summary": summary,
    }
    if thought.asked.signed:
        item["encrypted_content"] = thought.sealed
    return [item]


def _output(answer: Answer) -> list[dict[str, Any]]:
    """A reasoning item where the request asked for one, a message item where there is a text
    (or nothing else), then a `function_call` per call."""
    reply, items = answer.reply, _reasoning_item(answer)
    if reply.text or not reply.calls:
        text = {"type": "output_text", "text": reply.text, "annotations": []}
        items.append(
            {
                "type": "message",
                "id": _item_id("msg", answer, len(items)),
                "role": "assistant",
                "status": "completed",
                "content": [text],
            }
        )
    for call in reply.calls:
        items.append(
            {
                "type": "function_call",
                "id": _item_id("fc", answer, len(items)),
                "call_id": call.call_id,
                "name": call.tool,
                "arguments": arguments_json(call),
                "status": "completed",
            }
        )
    return items


def _response(answer: Answer, status: str, output: list[Any]) -> dict[str, Any]:
    t, done = answer.tokens, status == "completed"
    response: dict[str, Any] = {
        "id": answer.id,
        "object": "response",
        "created_at": answer.created,
        "status": status,
        "model": answer.model,
        "output": output,
        "parallel_tool_calls": True,  # the request's default, echoed
        "tool_choice": "auto",
        "tools": [],
        "usage": None
        if not done
        else {
            "input_tokens": t.input_total,
            "input_tokens_details": input_details(t),
            "output_tokens": t.output,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": t.input_total + t.output,
        },
    }
    if done and answer.diagnosed:  # the comparison is done when the response is
        response["prompt_cache_diagnostics"] = answer.diagnostics
    return response


def body(answer: Answer) -> dict[str, Any]:
    return _response(answer, "completed", _output(answer))


def _call_events(item: dict[str, Any], at: int) -> list[dict[str, Any]]:
    where = {"item_id": item["id"], "output_index": at}
    added = {"type": "response.output_item.added", "output_index": at}
    out = [{**added, "item": {**item, "arguments": "", "status": "in_progress"}}]
    for part in chunks(item["arguments"]):
        out.append({"type": "response.function_call_arguments.delta", **where, "delta": part})
    out.append(
        {"type": "response.function_call_arguments.done", **where, "arguments": item["arguments"]}
    )
    return out


def _text_events(item: dict[str, Any], at: int) -> list[dict[str, Any]]:
    where = {"item_id": item["id"], "output_index": at, "content_index": 0}
    added = {"type": "response.output_item.added", "output_index": at}
    text = item["content"][0]["text"]
    empty = {"type": "output_text", "text": "", "annotations": []}
    out = [
        {**added, "item": {**item, "content": [], "status": "in_progress"}},
        {"type": "response.content_part.added", **where, "part": empty},
    ]
    for part in chunks(text):
        out.append({"type": "response.output_text.delta", **where, "delta": part, "logprobs": []})
    out.append({"type": "response.output_text.done", **where, "text": text, "logprobs": []})
    out.append({"type": "response.content_part.done", **where, "part": item["content"][0]})
    return out


def _reasoning_events(item: dict[str, Any], at: int) -> list[dict[str, Any]]:
    added = {"type": "response.output_item.added", "output_index": at}
    out = [{**added, "item": {**item, "summary": []}}]
    for n, part in enumerate(item["summary"]):
        where = {"item_id": item["id"], "output_index": at, "summary_index": n}
        empty = {"type": "summary_text", "text": ""}
        out.append({"type": "response.reasoning_summary_part.added", **where, "part": empty})
        for piece in chunks(part["text"]):
            out.append({"type": "response.reasoning_summary_text.delta", **where, "delta": piece})
        out.append({"type": "response.reasoning_summary_text.done", **where, "text": part["text"]})
        out.append({"type": "response.reasoning_summary_part.done", **where, "part": part})
    return out


def _item_events(item: dict[str, Any], at: int) -> list[dict[str, Any]]:
    if item["type"] == "function_call":
        return _call_events(item, at)
    if item["type"] == "reasoning":
        return _reasoning_events(item, at)
    return _text_events(item, at)


def events(answer: Answer, include_usage: bool) -> list[Event]:
    # The usage (and the diagnostics) come with `response.completed` alone.
    started = _response(answer, "in_progress", [])
    raw: list[dict[str, Any]] = [
        {"type": "response.created", "response": started},
        {"type": "response.in_progress", "response": started},
    ]
    items = _output(answer)
    for at, item in enumerate(items):
        raw += _item_events(item, at)
        raw.append({"type": "response.output_item.done", "output_index": at, "item": item})
    raw.append({"type": "response.completed", "response": _response(answer, "completed", items)})
    return [Event({**e, "sequence_number": n}, e["type"]) for n, e in enumerate(raw)]


SHAPE = ApiShape(
    NAME,
    TITLE,
    ROUTES,
    PROVIDERS,
    parse,
    read_cache,
    body,
    events,
    refuse,
    Ids(answer_id, "x-request-id", openai_request_id),
    diagnostics=diagnostics,
    reasoning=REASONING,
)
