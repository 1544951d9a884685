"""OpenAI Chat Completions (and the local servers that speak it): `…/chat/completions`.

The request: `tools` (each a `function`), the leading system and developer messages, then
every other message with its content blocks and `tool_calls`; results are the `tool` messages
right after the call (or the API refuses the body). The
answer: a `chat.completion` body (the text, then each call in `tool_calls`), or chunks ending in
`[DONE]`, with a usage chunk last only when `stream_options.include_usage` asks; usage in
`prompt_tokens` and `prompt_tokens_details`; its id `chatcmpl-…`, the request's in the
`x-request-id` header. Chat Completions has no cache diagnostics.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxconf.cache.canonical import canonical_text
from ctxconf.cache.request import Section
from ctxconf.cache.units import Parts, content_blocks, dicts, mapping

from . import wire
from .answers import Answer, Event, Reply, Tokens, arguments_json, chunks, token
from .chat_reasoning import REASONING
from .openai_fields import (
    SYSTEM_ROLES,
    input_details,
    openai_request_id,
    openai_settings,
    wants_json,
)
from .shape import ApiShape, Ids, Refusal, Routes
from .wire import Mention, Request, Tool, ToolResult

NAME = "openai-chat"
TITLE = "OpenAI Chat Completions"
ROUTES: Routes = (("/chat/completions", "answer"),)
PROVIDERS = ("openai", "llamacpp")  # the first is the one it is played under by default

# --- the request, as the mock and the checks see it -------------------------------------------


def _mentions(index: int, m: Mapping[str, Any]) -> list[Mention]:
    found = []
    for call in wire.dicts(m.get("tool_calls")) if m.get("role") == "assistant" else []:
        function = wire.as_mapping(call.get("function"))
        name = str(function.get("name", ""))
        found.append(
            Mention("call", index, str(call.get("id", "")), name, function.get("arguments"))
        )
    if m.get("role") == "tool":
        key = str(m.get("tool_call_id", ""))
        found.append(Mention("result", index, key, text=wire.text_of(m.get("content"))))
    return found


def parse(body: Mapping[str, Any], stream: bool = False) -> Request:
    messages = wire.dicts(body.get("messages"))
    lead = wire.leading_system(messages)
    system_parts, rest = messages[:lead], tuple(messages[lead:])
    tools = tuple(
        Tool(str(f.get("name")), wire.as_mapping(f.get("parameters")), wire.description_of(f))
        for t in wire.dicts(body.get("tools"))
        for f in [t.get("function", t)]
        if isinstance(f, Mapping)
    )
    results = tuple(
        ToolResult(str(m.get("tool_call_id", "")), wire.text_of(m.get("content")))
        for m in rest
        if m.get("role") == "tool"
    )
    users = tuple(wire.text_of(m.get("content")) for m in rest if m.get("role") == "user")
    options = body.get("stream_options")
    return Request(
        shape=NAME,
        system="\n\n".join(wire.text_of(m.get("content")) for m in system_parts)
        if system_parts
        else None,
        tools=tools,
        messages=rest,
        assistant_turns=sum(1 for m in rest if m.get("role") == "assistant"),
        results=results,
        last_user_text=wire.user_text(users),
        user_texts=users,
        stream=bool(body.get("stream")),
        include_usage=isinstance(options, Mapping) and bool(options.get("include_usage")),
        wants_json=wants_json(body.get("response_format")),
        history=wire.mentions(rest, _mentions),
    )


def refuse(body: Mapping[str, Any]) -> Refusal | None:
    """An assistant message's `tool_calls` must each be answered by the `tool` messages right
    after it. The wording and the `param` (the message that stands where a tool message
    should, or the assistant's own when the body ends) follow the API's observed error."""
    messages = wire.dicts(body.get("messages"))
    for index, message in enumerate(messages[:-1]):
        calls = wire.dicts(message.get("tool_calls")) if message.get("role") == "assistant" else []
        after = index + 1
        answered = set()
        while after < len(messages) and messages[after].get("role") == "tool":
            answered.add(messages[after].get("tool_call_id"))
            after += 1
        missing = tuple(str(c.get("id", "")) for c in calls if c.get("id") not in answered)
        if missing:
            text = (
                "An assistant message with 'tool_calls' must be followed by tool messages"
                " responding to each 'tool_call_id'. The following tool_call_ids did not have"
                f" response messages: {', '.join(missing)}"
            )
            place = after if after < len(messages) else index
            error = {
                "message": text,
                "type": "invalid_request_error",
                "param": f"messages.[{place}].role",
                "code": None,
            }
            return Refusal(400, {"error": error}, text)
    return None


# --- the request, as a provider's cache sees it ------------------------------------------------

_MESSAGE_LISTS = ("content", "tool_calls")


def _message_blocks(message: Mapping[str, Any], path: str) -> list[tuple[str, Any]]:
    blocks = content_blocks(message.get("content"), path + ".content")
    for n, call in enumerate(dicts(message.get("tool_calls"))):
        blocks.append((f"{path}.tool_calls.{n}", call))
    return blocks


def read_cache(body: Mapping[str, Any]) -> Parts:
    parts = Parts()
    for index, tool in enumerate(dicts(body.get("tools"))):
        function = mapping(tool.get("function"))
        name = function.get("name") or tool.get("type")
        spec = (function.get("description"), function.get("parameters"))
        parts.add_tool(f"tools.{index}", tool, name, *spec)
    in_system = True
    for index, message in enumerate(dicts(body.get("messages"))):
        role = str(message.get("role", ""))
        in_system = in_system and role in SYSTEM_ROLES
        section: Section = "system" if in_system else "messages"
        header = {k: v for k, v in message.items() if k not in _MESSAGE_LISTS}
        path = f"messages.{index}"
        parts.add_message(section, path, index, role, header, _message_blocks(message, path))
    parts.params.update(
        thinking=canonical_text(body.get("thinking")),
        effort=canonical_text(body.get("reasoning_effort")),
        tool_choice=canonical_text(body.get("tool_choice")),
        prompt_cache_key=canonical_text(body.get("prompt_cache_key")),
    )
    parts.settings = openai_settings(body)
    return parts


# --- the answer ------------------------------------------------------------------------------


def answer_id() -> str:
    return "chatcmpl-" + token(29)


def _usage(t: Tokens) -> dict[str, Any]:
    return {
        "prompt_tokens": t.input_total,
        "completion_tokens": t.output,
        "total_tokens": t.input_total + t.output,
        "prompt_tokens_details": input_details(t),
        "completion_tokens_details": {"reasoning_tokens": 0},
    }


def _finish(reply: Reply) -> str:
    return "tool_calls" if reply.calls else "stop"


def body(answer: Answer) -> dict[str, Any]:
    reply = answer.reply
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if answer.thought is not None:
        message["reasoning_content"] = answer.thought.text
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": c.call_id,
                "type": "function",
                "function": {"name": c.tool, "arguments": arguments_json(c)},
            }
            for c in reply.calls
        ]
    return {
        "id": answer.id,
        "object": "chat.completion",
        "created": answer.created,
        "model": answer.model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": _finish(reply), "logprobs": None}
        ],
        "usage": _usage(answer.tokens),
    }


def events(answer: Answer, include_usage: bool) -> list[Event]:
    head = {
        "id": answer.id,
        "object": "chat.completion.chunk",
        "created": answer.created,
        "model": answer.model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> Event:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        data: dict[str, Any] = {**head, "choices": [choice]}
        if include_usage:
            data["usage"] = None
        return Event(data)

    reply = answer.reply
    out = [chunk({"role": "assistant", "content": ""})]
    if answer.thought is not None:  # before the content, as the providers stream it
        thought = answer.thought.text
        out.extend(chunk({"reasoning_content": part}) for part in chunks(thought))
    if reply.text:
        out.extend(chunk({"content": part}) for part in chunks(reply.text))
    for index, call in enumerate(reply.calls):
        opened = {"index": index, "id": call.call_id, "type": "function"}
        function = {"name": call.tool, "arguments": ""}
        out.append(chunk({"tool_calls": [{**opened, "function": function}]}))
        for part in chunks(arguments_json(call)):
            out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]}))
    if not reply.text and not reply.calls:
        out.append(chunk({"content": ""}))
    out.append(chunk({}, _finish(reply)))
    if include_usage:  # last, with no choice, only when stream_options.include_usage asks
        out.append(Event({**head, "choices": [], "usage": _usage(answer.tokens)}))
    out.append(Event("[DONE]"))
    return out


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
    reasoning=REASONING,
)
