"""One request of any of the four API shapes, seen the same way: system prompt, tools, messages.

The mock answers from this view and the checks judge it, so neither needs to know where each
shape keeps its parts. Canonical forms drop what a harness may move without rewriting anything
(`cache_control` markers) and treat a string and one text block as the same content.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Shape = Literal["openai-chat", "openai-responses", "anthropic", "gemini"]
SHAPES: tuple[Shape, ...] = ("openai-chat", "openai-responses", "anthropic", "gemini")


@dataclass(frozen=True)
class Tool:
    """A tool's whole definition: a change to any part of it is a change of the tool list."""

    name: str
    schema: Mapping[str, Any]
    description: str = ""


@dataclass(frozen=True)
class ToolResult:
    call_id: str
    text: str


@dataclass(frozen=True)
class Request:
    """What a harness sent: each part as sent (for byte comparisons) and read (for answering)."""

    shape: Shape
    system: str | None
    tools: tuple[Tool, ...]
    messages: tuple[Any, ...]  # the shape's own message objects, in order
    assistant_turns: int
    results: tuple[ToolResult, ...]
    last_user_text: str
    user_texts: tuple[str, ...]
    stream: bool
    include_usage: bool
    wants_json: bool

    def canonical_messages(self) -> list[str]:
        return [canonical(m) for m in self.messages]

    def canonical_tools(self) -> str:
        return json.dumps(
            [
                {"name": t.name, "description": t.description, "schema": t.schema}
                for t in self.tools
            ],
            sort_keys=True,
        )

    def prefix_text(self) -> str:
        """The request as a provider's cache sees it: system, tools, then messages, in order."""
        return json.dumps(self.system) + self.canonical_tools() + "".join(self.canonical_messages())


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        out = {k: _strip(v) for k, v in value.items() if k != "cache_control"}
        content = out.get("content")
        if (
            isinstance(content, list)
            and len(content) == 1
            and isinstance(content[0], dict)
            and set(content[0]) == {"type", "text"}
            and content[0]["type"] in ("text", "input_text", "output_text")
        ):
            out["content"] = content[0]["text"]
        return out
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def canonical(message: Any) -> str:
    return json.dumps(_strip(message), sort_keys=True, ensure_ascii=False)


def _text_of(content: Any) -> str:
    """The text of a content value: a string, a list of blocks or parts, or a block."""
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        for key in ("text", "content", "output"):
            if key in content:
                return _text_of(content[key])
        if "functionResponse" in content:
            return _text_of(content["functionResponse"].get("response"))
        if "response" in content:
            return _text_of(content["response"])
        return json.dumps(content, sort_keys=True) if content else ""
    if isinstance(content, Sequence):
        return "\n".join(_text_of(part) for part in content)
    return "" if content is None else json.dumps(content)


def text_of_message(message: Any) -> str:
    """The text a message of any shape holds: its content, or a Gemini content's parts."""
    if isinstance(message, Mapping) and "parts" in message:
        return _text_of(message["parts"])
    return _text_of(message.get("content") if isinstance(message, Mapping) else message)


def _dicts(value: Any) -> list[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _schema(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _description(definition: Mapping[str, Any]) -> str:
    value = definition.get("description")
    if value is None or isinstance(value, str):
        return value or ""
    return json.dumps(value, sort_keys=True)  # not a text, but still part of the definition


def _leading_system(messages: Sequence[Mapping[str, Any]]) -> int:
    """How many messages at the start are the system prompt; a system message later on is a
    message of the history (a harness's reminder), not part of the prompt."""
    count = 0
    while count < len(messages) and messages[count].get("role") in ("system", "developer"):
        count += 1
    return count


def _parse_chat(body: Mapping[str, Any]) -> Request:
    messages = _dicts(body.get("messages"))
    lead = _leading_system(messages)
    system_parts, rest = messages[:lead], tuple(messages[lead:])
    tools = tuple(
        Tool(str(f.get("name")), _schema(f.get("parameters")), _description(f))
        for t in _dicts(body.get("tools"))
        for f in [t.get("function", t)]
        if isinstance(f, Mapping)
    )
    results = tuple(
        ToolResult(str(m.get("tool_call_id", "")), _text_of(m.get("content")))
        for m in rest
        if m.get("role") == "tool"
    )
    users = tuple(_text_of(m.get("content")) for m in rest if m.get("role") == "user")
    options = body.get("stream_options")
    fmt = body.get("response_format")
    return Request(
        shape="openai-chat",
        system="\n\n".join(_text_of(m.get("content")) for m in system_parts)
        if system_parts
        else None,
        tools=tools,
        messages=rest,
        assistant_turns=sum(1 for m in rest if m.get("role") == "assistant"),
        results=results,
        last_user_text=users[-1] if users else "",
        user_texts=users,
        stream=bool(body.get("stream")),
        include_usage=isinstance(options, Mapping) and bool(options.get("include_usage")),
        wants_json=isinstance(fmt, Mapping) and fmt.get("type") in ("json_object", "json_schema"),
    )


_RESPONSE_ASSISTANT = ("function_call", "reasoning", "custom_tool_call", "local_shell_call")


def _parse_responses(body: Mapping[str, Any]) -> Request:
    raw = body.get("input")
    items: list[Mapping[str, Any]] = (
        _dicts(raw) if isinstance(raw, list) else [{"role": "user", "content": raw or ""}]
    )
    lead = _leading_system(items)
    system_items, rest = items[:lead], tuple(items[lead:])
    parts = [str(body["instructions"])] if isinstance(body.get("instructions"), str) else []
    parts += [_text_of(i.get("content")) for i in system_items]
    turns, in_run = 0, False
    for item in rest:
        mine = item.get("type") in _RESPONSE_ASSISTANT or item.get("role") == "assistant"
        turns += 1 if mine and not in_run else 0
        in_run = mine
    tools = tuple(
        Tool(str(t.get("name")), _schema(t.get("parameters")), _description(t))
        for t in _dicts(body.get("tools"))
        if t.get("name")
    )
    results = tuple(
        ToolResult(str(i.get("call_id", "")), _text_of(i.get("output")))
        for i in rest
        if str(i.get("type", "")).endswith("_output")
    )
    users = tuple(_text_of(i.get("content")) for i in rest if i.get("role") == "user")
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, Mapping) else None
    return Request(
        shape="openai-responses",
        system="\n\n".join(parts) if parts else None,
        tools=tools,
        messages=rest,
        assistant_turns=turns,
        results=results,
        last_user_text=users[-1] if users else "",
        user_texts=users,
        stream=bool(body.get("stream")),
        include_usage=True,
        wants_json=isinstance(fmt, Mapping) and fmt.get("type") in ("json_object", "json_schema"),
    )


def _parse_anthropic(body: Mapping[str, Any]) -> Request:
    messages = tuple(_dicts(body.get("messages")))
    system = body.get("system")
    results: list[ToolResult] = []
    users: list[str] = []
    for m in messages:
        if m.get("role") != "user":
            continue
        blocks = m.get("content")
        texts = []
        for block in _dicts(blocks) if isinstance(blocks, list) else [{"text": blocks}]:
            if block.get("type") == "tool_result":
                results.append(
                    ToolResult(str(block.get("tool_use_id", "")), _text_of(block.get("content")))
                )
            elif "text" in block:
                texts.append(str(block["text"]))
        if texts:
            users.append("\n".join(texts))
    return Request(
        shape="anthropic",
        system=None if system is None else _text_of(system),
        tools=tuple(
            Tool(str(t.get("name")), _schema(t.get("input_schema")), _description(t))
            for t in _dicts(body.get("tools"))
        ),
        messages=messages,
        assistant_turns=sum(1 for m in messages if m.get("role") == "assistant"),
        results=tuple(results),
        last_user_text=users[-1] if users else "",
        user_texts=tuple(users),
        stream=bool(body.get("stream")),
        include_usage=True,
        wants_json=False,
    )


def _parse_gemini(body: Mapping[str, Any], stream: bool) -> Request:
    contents = tuple(_dicts(body.get("contents")))
    instruction = body.get("systemInstruction") or body.get("system_instruction")
    declarations = [
        d
        for t in _dicts(body.get("tools"))
        for d in _dicts(t.get("functionDeclarations") or t.get("function_declarations"))
    ]
    results: list[ToolResult] = []
    users: list[str] = []
    for c in contents:
        if c.get("role", "user") != "user":
            continue
        texts = []
        for part in _dicts(c.get("parts")):
            response = part.get("functionResponse") or part.get("function_response")
            if isinstance(response, Mapping):
                results.append(
                    ToolResult(
                        str(response.get("id") or response.get("name", "")),
                        _text_of(response.get("response")),
                    )
                )
            elif "text" in part:
                texts.append(str(part["text"]))
        if texts:
            users.append("\n".join(texts))
    config = body.get("generationConfig") or body.get("generation_config") or {}
    mime = config.get("responseMimeType") if isinstance(config, Mapping) else None
    return Request(
        shape="gemini",
        system=None if instruction is None else _text_of(_schema(instruction).get("parts")),
        tools=tuple(
            Tool(
                str(d.get("name")),
                _schema(
                    d.get("parameters")
                    or d.get("parametersJsonSchema")
                    or d.get("parameters_json_schema")
                ),
                _description(d),
            )
            for d in declarations
        ),
        messages=contents,
        assistant_turns=sum(1 for c in contents if c.get("role") == "model"),
        results=tuple(results),
        last_user_text=users[-1] if users else "",
        user_texts=tuple(users),
        stream=stream,
        include_usage=True,
        wants_json=mime == "application/json",
    )


@dataclass(frozen=True)
class ToolCall:
    """A call the history holds, its result's text (None: the history has no result for it),
    and the index of the message that holds the call."""

    call_id: str  # "" when the shape carries no id (an older Gemini call)
    name: str
    arguments: Any
    message: int
    result: str | None


_RESPONSE_CALLS = ("function_call", "custom_tool_call", "local_shell_call")

# A call as found: (id, name, arguments, message index); a result: (the id or name it answers,
# its text). Each shape's reader yields them in the order sent.
Found = tuple[str, tuple[Any, ...]]


def _chat_calls(index: int, m: Mapping[str, Any]) -> list[Found]:
    found: list[Found] = []
    for call in _dicts(m.get("tool_calls")) if m.get("role") == "assistant" else []:
        function = _schema(call.get("function"))
        name = str(function.get("name", ""))
        found.append(("call", (str(call.get("id", "")), name, function.get("arguments"), index)))
    if m.get("role") == "tool":
        found.append(("result", (str(m.get("tool_call_id", "")), _text_of(m.get("content")))))
    return found


def _responses_calls(index: int, m: Mapping[str, Any]) -> list[Found]:
    kind = str(m.get("type", ""))
    if kind in _RESPONSE_CALLS:
        arguments = m.get("arguments", m.get("input", m.get("action")))
        return [("call", (str(m.get("call_id", "")), str(m.get("name", kind)), arguments, index))]
    if kind.endswith("_output"):
        return [("result", (str(m.get("call_id", "")), _text_of(m.get("output"))))]
    return []


def _anthropic_calls(index: int, m: Mapping[str, Any]) -> list[Found]:
    found: list[Found] = []
    for block in _dicts(m.get("content")):
        if block.get("type") == "tool_use" and m.get("role") == "assistant":
            name = str(block.get("name", ""))
            found.append(("call", (str(block.get("id", "")), name, block.get("input"), index)))
        elif block.get("type") == "tool_result":
            text = _text_of(block.get("content"))
            found.append(("result", (str(block.get("tool_use_id", "")), text)))
    return found


def _gemini_calls(index: int, m: Mapping[str, Any]) -> list[Found]:
    found: list[Found] = []
    for part in _dicts(m.get("parts")):
        call = _schema(part.get("functionCall") or part.get("function_call"))
        response = _schema(part.get("functionResponse") or part.get("function_response"))
        if call:
            name = str(call.get("name", ""))
            found.append(("call", (str(call.get("id") or ""), name, call.get("args"), index)))
        elif response:
            key = str(response.get("id") or response.get("name", ""))
            found.append(("result", (key, _text_of(response.get("response")))))
    return found


_CALL_READERS = {
    "openai-chat": _chat_calls,
    "openai-responses": _responses_calls,
    "anthropic": _anthropic_calls,
    "gemini": _gemini_calls,
}


def _calls_and_results(request: Request) -> list[Found]:
    """The history's calls and results in the order sent, in each shape's own words for them."""
    reader = _CALL_READERS[request.shape]
    return [
        item
        for index, m in enumerate(request.messages)
        if isinstance(m, Mapping)
        for item in reader(index, m)
    ]


def ends_with_result(request: Request) -> bool:
    """Whether the request's last message carries a tool's result."""
    if not request.messages or not isinstance(request.messages[-1], Mapping):
        return False
    last = len(request.messages) - 1
    found = _CALL_READERS[request.shape](last, request.messages[last])
    return any(kind == "result" for kind, _ in found)


def tool_calls(request: Request) -> list[ToolCall]:
    """Every call in the request's history, each paired with the first later result that
    answers it: by id, or by name for a shape without ids."""
    calls: list[ToolCall] = []
    pending: list[int] = []  # indexes into calls still waiting for a result
    for kind, value in _calls_and_results(request):
        if kind == "call":
            call_id, name, arguments, index = value
            pending.append(len(calls))
            calls.append(ToolCall(call_id, name, arguments, index, None))
            continue
        key, text = value
        for position, number in enumerate(pending):
            call = calls[number]
            if (call.call_id or call.name) == key or (call.call_id and call.name == key):
                calls[number] = ToolCall(
                    call.call_id, call.name, call.arguments, call.message, text
                )
                del pending[position]
                break
    return calls


def parse_request(shape: Shape, body: Mapping[str, Any], stream: bool = False) -> Request:
    """The view of one request body; `stream` counts for Gemini, whose path says it."""
    if shape == "openai-chat":
        return _parse_chat(body)
    if shape == "openai-responses":
        return _parse_responses(body)
    if shape == "anthropic":
        return _parse_anthropic(body)
    return _parse_gemini(body, stream)


__all__ = [
    "SHAPES",
    "Request",
    "Shape",
    "Tool",
    "ToolCall",
    "ToolResult",
    "canonical",
    "ends_with_result",
    "parse_request",
    "text_of_message",
    "tool_calls",
]
