"""Anthropic Messages: `…/messages`, and `…/messages/count_tokens`.

The request: `tools`, then `system` (a string or blocks), then each message's blocks; calls are
`tool_use` blocks, results `tool_result` blocks of a user message (in the very next message, or
the API refuses the body). The answer: a `message` body,
or the events from `message_start` to `message_stop`, a text block and then a `tool_use` block
per call; usage in `input_tokens` (neither read nor written), `cache_read_input_tokens`,
`cache_creation_input_tokens` and `cache_creation`, on `message_start` and again, cumulative,
on `message_delta`; its id `msg_…`, the request's in the `request-id` header. A request that
sends a `diagnostics` object gets the provider's cache diagnostics on the Message (streamed, on
`message_start`). A request that asks for thinking gets a `thinking` block first, its text in
`thinking_delta`s and its `signature` in a `signature_delta` before `content_block_stop`, or a
`redacted_thinking` block (`anthropic_thinking.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from ctxconf.cache.canonical import canonical_text
from ctxconf.cache.credentials import Headers
from ctxconf.cache.provider_diagnostics import ANTHROPIC_BETA, DiagnosticsAsk
from ctxconf.cache.request import CacheSettings
from ctxconf.cache.units import Parts, blocks_of, content_blocks, dicts, mapping, ttl_of

from . import wire
from .answers import Answer, Call, Event, Reply, Tokens, arguments_json, chunks, token
from .anthropic_thinking import REASONING
from .reasoning import Thought
from .shape import ApiShape, Ids, Refusal, Routes
from .wire import Mention, Request, Tool, ToolResult

NAME = "anthropic"
TITLE = "Anthropic Messages"
ROUTES: Routes = (("/messages/count_tokens", "count"), ("/messages", "answer"))
PROVIDERS = ("anthropic", "llamacpp")  # the first is the one it is played under by default

# --- the request, as the mock and the checks see it -------------------------------------------


def _mentions(index: int, m: Mapping[str, Any]) -> list[Mention]:
    found = []
    for block in wire.dicts(m.get("content")):
        if block.get("type") == "tool_use" and m.get("role") == "assistant":
            name = str(block.get("name", ""))
            found.append(Mention("call", index, str(block.get("id", "")), name, block.get("input")))
        elif block.get("type") == "tool_result":
            key, text = str(block.get("tool_use_id", "")), wire.text_of(block.get("content"))
            found.append(Mention("result", index, key, text=text))
    return found


def parse(body: Mapping[str, Any], stream: bool = False) -> Request:
    messages = tuple(wire.dicts(body.get("messages")))
    system = body.get("system")
    results: list[ToolResult] = []
    users: list[str] = []
    for m in messages:
        if m.get("role") != "user":
            continue
        blocks = m.get("content")
        texts = []
        for block in wire.dicts(blocks) if isinstance(blocks, list) else [{"text": blocks}]:
            if block.get("type") == "tool_result":
                call_id = str(block.get("tool_use_id", ""))
                results.append(ToolResult(call_id, wire.text_of(block.get("content"))))
            elif "text" in block:
                texts.append(str(block["text"]))
        if texts:
            users.append("\n".join(texts))
    return Request(
        shape=NAME,
        system=None if system is None else wire.text_of(system),
        tools=tuple(
            Tool(str(t.get("name")), wire.as_mapping(t.get("input_schema")), wire.description_of(t))
            for t in wire.dicts(body.get("tools"))
        ),
        messages=messages,
        assistant_turns=sum(1 for m in messages if m.get("role") == "assistant"),
        results=tuple(results),
        last_user_text=wire.user_text(users),
        user_texts=tuple(users),
        stream=bool(body.get("stream")),
        include_usage=True,
        wants_json=False,
        history=wire.mentions(messages, _mentions),
    )


def refuse(body: Mapping[str, Any]) -> Refusal | None:
    """Each `tool_use` of an assistant message must be answered by a `tool_result` in the very
    next message; the API names the assistant message and the ids it found unanswered."""
    messages = wire.dicts(body.get("messages"))
    for index, (message, after) in enumerate(pairwise(messages)):
        if message.get("role") != "assistant":
            continue
        calls = [b for b in wire.dicts(message.get("content")) if b.get("type") == "tool_use"]
        answered = {
            b.get("tool_use_id")
            for b in wire.dicts(after.get("content"))
            if after.get("role") == "user" and b.get("type") == "tool_result"
        }
        missing = tuple(str(b.get("id", "")) for b in calls if b.get("id") not in answered)
        if missing:
            text = (
                f"messages.{index}: `tool_use` ids were found without `tool_result` blocks"
                f" immediately after: {', '.join(missing)}. Each `tool_use` block must have a"
                " corresponding `tool_result` block in the next message."
            )
            return _invalid(text)
    return None


def _invalid(text: str) -> Refusal:
    error = {"type": "invalid_request_error", "message": text}
    return Refusal(400, {"type": "error", "error": error}, text)


# --- what the request asks of the provider's cache diagnostics ---------------------------------


def diagnostics(body: Mapping[str, Any], headers: Headers) -> DiagnosticsAsk | Refusal | None:
    """The `diagnostics` object (`{"previous_message_id": null | "msg_…"}`) and the beta header;
    an object of another form is the API's 400, as its validation words it."""
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    header = any(
        name.lower() == "anthropic-beta" and ANTHROPIC_BETA in value for name, value in pairs
    )
    asked = body.get("diagnostics")
    if asked is None:
        return DiagnosticsAsk("anthropic", False, None, header) if header else None
    if not isinstance(asked, Mapping):
        return _invalid("diagnostics: Input should be a valid dictionary or object")
    extra = sorted(str(k) for k in asked if k != "previous_message_id")
    if extra:
        return _invalid(f"diagnostics.{extra[0]}: Extra inputs are not permitted")
    against = asked.get("previous_message_id")
    if against is not None and not isinstance(against, str):
        return _invalid("diagnostics.previous_message_id: Input should be a valid string")
    return DiagnosticsAsk("anthropic", True, against, header)


# --- the request, as a provider's cache sees it ------------------------------------------------


def _images(parts: Parts) -> str:
    present = any(b'"type":"image"' in u.data for u in parts.units if u.section == "messages")
    return "present" if present else "absent"


def read_cache(body: Mapping[str, Any]) -> Parts:
    parts = Parts()
    for index, tool in enumerate(dicts(body.get("tools"))):
        name = tool.get("name") or tool.get("type")
        schema = tool.get("input_schema")
        parts.add_tool(f"tools.{index}", tool, name, tool.get("description"), schema)
    system = body.get("system")
    if isinstance(system, str):
        if system:
            parts.add("system", "system", {"type": "text", "text": system}, role="system")
    else:
        for index, block in enumerate(blocks_of(system)):
            parts.add("system", f"system.{index}", block, role="system")
    for index, message in enumerate(dicts(body.get("messages"))):
        role = str(message.get("role", ""))
        header = {k: v for k, v in message.items() if k != "content"}
        blocks = content_blocks(message.get("content"), f"messages.{index}.content")
        parts.add_message("messages", f"messages.{index}", index, role, header, blocks)
    output_config = mapping(body.get("output_config"))
    parts.params.update(
        thinking=canonical_text(body.get("thinking")),
        effort=canonical_text(output_config.get("effort")),
        tool_choice=canonical_text(body.get("tool_choice")),
        images=_images(parts),
        # Compared by the provider's diagnostics alone (`unavailable` when they differ).
        context_management=canonical_text(body.get("context_management")),
        output_config=canonical_text(body.get("output_config")),
        output_format=canonical_text(body.get("output_format")),
    )
    parts.settings = CacheSettings(auto_ttl=ttl_of(body))
    return parts


# --- the answer ------------------------------------------------------------------------------


def answer_id() -> str:
    return "msg_01" + token(22)


def request_id() -> str:
    return "req_011C" + token(20)


def _usage(t: Tokens, output: int) -> dict[str, Any]:
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


def _thinking(thought: Thought | None) -> list[dict[str, Any]]:
    if thought is None:
        return []
    if thought.redacted:
        return [{"type": "redacted_thinking", "data": thought.sealed}]
    return [{"type": "thinking", "thinking": thought.text, "signature": thought.signature}]


def _blocks(reply: Reply, thought: Thought | None = None) -> list[dict[str, Any]]:
    """The thinking where the request asked for it, a text block where there is a text (or
    nothing else), then a `tool_use` block per call."""
    blocks: list[dict[str, Any]] = _thinking(thought)
    if reply.text or not reply.calls:
        blocks.append({"type": "text", "text": reply.text})
    blocks += [
        {"type": "tool_use", "id": c.call_id, "name": c.tool, "input": c.arguments}
        for c in reply.calls
    ]
    return blocks


def _stop(reply: Reply) -> str:
    return "tool_use" if reply.calls else "end_turn"


def body(answer: Answer) -> dict[str, Any]:
    message: dict[str, Any] = {
        "id": answer.id,
        "type": "message",
        "role": "assistant",
        "model": answer.model,
        "content": _blocks(answer.reply, answer.thought),
        "stop_reason": _stop(answer.reply),
        "stop_sequence": None,
        "usage": _usage(answer.tokens, answer.tokens.output),
    }
    if answer.diagnosed:  # only where the request asked; `null` is an answer then
        message["diagnostics"] = answer.diagnostics
    if answer.transformations is not None:
        message["input_transformations"] = list(answer.transformations)
    return message


def _deltas(block: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A block as `content_block_start` opens it, and the deltas that fill it."""
    if block["type"] == "thinking":  # its text in pieces, its signature last
        thinking = [{"type": "thinking_delta", "thinking": p} for p in chunks(block["thinking"])]
        signed = {"type": "signature_delta", "signature": block["signature"]}
        return {"type": "thinking", "thinking": "", "signature": ""}, [*thinking, signed]
    if block["type"] == "redacted_thinking":  # whole as it opens
        return block, []
    if block["type"] == "tool_use":
        pieces = chunks(arguments_json(Call(block["name"], block["input"], block["id"])))
        return {**block, "input": {}}, [
            {"type": "input_json_delta", "partial_json": p} for p in pieces
        ]
    return {"type": "text", "text": ""}, [
        {"type": "text_delta", "text": p} for p in chunks(block["text"])
    ]


def events(answer: Answer, include_usage: bool) -> list[Event]:
    # message_start carries the input side of the usage (and the diagnostics, whole); each
    # message_delta repeats the figures cumulatively, with the output so far.
    start = {**body(answer), "content": [], "stop_reason": None}
    start["usage"] = _usage(answer.tokens, 1)
    out = [Event({"type": "message_start", "message": start}, "message_start")]
    for index, block in enumerate(_blocks(answer.reply, answer.thought)):
        opened, deltas = _deltas(block)
        started = {"type": "content_block_start", "index": index, "content_block": opened}
        out.append(Event(started, "content_block_start"))
        filled = [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        out.extend(Event(d, "content_block_delta") for d in filled)
        out.append(Event({"type": "content_block_stop", "index": index}, "content_block_stop"))
    stop = {"stop_reason": _stop(answer.reply), "stop_sequence": None}
    usage = _usage(answer.tokens, answer.tokens.output)
    out.append(Event({"type": "message_delta", "delta": stop, "usage": usage}, "message_delta"))
    out.append(Event({"type": "message_stop"}, "message_stop"))
    return out


def count(total: int) -> dict[str, Any]:
    return {"input_tokens": total}


IDS = Ids(answer_id, "request-id", request_id)
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
    IDS,
    count,
    diagnostics,
    REASONING,
)
