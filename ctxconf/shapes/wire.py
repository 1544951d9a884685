"""One request of any API shape, seen the same way: system prompt, tools, messages, and the
calls and results its history holds. Each shape's module (`shapes/`) reads its own bodies into
this view; the mock answers from it and the checks judge it, so neither needs to know where a
shape keeps its parts. Canonical forms drop what a harness may move without rewriting anything
(`cache_control` markers) and treat a string and one text block as the same content.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

# A shape's name as profiles give it (`api:`); `shapes.SHAPES` holds the registered ones.
Shape = str


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
class Mention:
    """A tool call, or a tool's result, as a shape's reader found it in message `message`: a
    call's `key` is its id ("" when the shape carries none, as an older Gemini call), a result's
    the id (or, for a shape without ids, the name) of the call it answers."""

    kind: Literal["call", "result"]
    message: int
    key: str
    name: str = ""
    arguments: Any = None
    text: str = ""


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
    history: tuple[Mention, ...] = ()  # the calls and results of `messages`, in the order sent

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


def text_of(content: Any) -> str:
    """The text of a content value: a string, a list of blocks or parts, or a block."""
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        for key in ("text", "content", "output"):
            if key in content:
                return text_of(content[key])
        if "functionResponse" in content:
            return text_of(content["functionResponse"].get("response"))
        if "response" in content:
            return text_of(content["response"])
        return json.dumps(content, sort_keys=True) if content else ""
    if isinstance(content, Sequence):
        return "\n".join(text_of(part) for part in content)
    return "" if content is None else json.dumps(content)


def text_of_message(message: Any) -> str:
    """The text a message of any shape holds: its content, or a Gemini content's parts."""
    if isinstance(message, Mapping) and "parts" in message:
        return text_of(message["parts"])
    return text_of(message.get("content") if isinstance(message, Mapping) else message)


def dicts(value: Any) -> list[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def as_mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def description_of(definition: Mapping[str, Any]) -> str:
    value = definition.get("description")
    if value is None or isinstance(value, str):
        return value or ""
    return json.dumps(value, sort_keys=True)  # not a text, but still part of the definition


def leading_system(messages: Sequence[Mapping[str, Any]]) -> int:
    """How many messages at the start are the system prompt; a system message later on is a
    message of the history (a harness's reminder), not part of the prompt."""
    count = 0
    while count < len(messages) and messages[count].get("role") in ("system", "developer"):
        count += 1
    return count


MentionReader = Callable[[int, Mapping[str, Any]], list[Mention]]


def mentions(messages: Sequence[Any], reader: MentionReader) -> tuple[Mention, ...]:
    """Every call and result of `messages`, in the order sent, found by a shape's `reader`."""
    return tuple(
        found
        for index, message in enumerate(messages)
        if isinstance(message, Mapping)
        for found in reader(index, message)
    )


def user_text(users: Sequence[str]) -> str:
    return users[-1] if users else ""


@dataclass(frozen=True)
class ToolCall:
    """A call the history holds, its result's text (None: the history has no result for it),
    and the index of the message that holds the call."""

    call_id: str  # "" when the shape carries no id (an older Gemini call)
    name: str
    arguments: Any
    message: int
    result: str | None
    result_message: int | None = None  # the index of the message that holds the result


def result_follows(request: Request, call: ToolCall) -> bool:
    """Whether the call's result stands right after it: only calls and results between them (a
    result placed after another message, as a resumed session may put a synthetic one after the
    new user message, is refused by every API). A call without a result has none to follow."""
    if call.result_message is None:
        return True
    mentioned = {m.message for m in request.history}
    return all(index in mentioned for index in range(call.message + 1, call.result_message))


def ends_with_result(request: Request) -> bool:
    """Whether the request's last message carries a tool's result."""
    last = len(request.messages) - 1
    return any(m.kind == "result" and m.message == last for m in request.history)


def ends_with_own_prompt(request: Request, said: Sequence[str]) -> bool:
    """Whether the request branches from the loop's history with a prompt of the harness's own
    (a title, a summary, a memory update): the user messages after the last answer hold neither
    a tool's result nor any of `said` (the scenario's messages), while an earlier message holds
    one. What it is sent with, the loop's prompt and tools or others, does not matter."""
    results = {m.message for m in request.history if m.kind == "result"}
    prompts: list[str] = []
    for index in range(len(request.messages) - 1, -1, -1):
        message = request.messages[index]
        if index in results:
            return False
        # A Gemini content without a role is the user's.
        role = (
            message.get("role", "user" if "parts" in message else None)
            if isinstance(message, Mapping)
            else None
        )
        if role != "user":
            break
        prompts.append(text_of_message(message))
    if not prompts or any(text in prompt for text in said for prompt in prompts):
        return False
    return any(text in user for text in said for user in request.user_texts)


def tool_calls(request: Request) -> list[ToolCall]:
    """Every call in the request's history, each paired with the first later result that
    answers it: by id, or by name for a shape without ids."""
    calls: list[ToolCall] = []
    pending: list[int] = []  # indexes into calls still waiting for a result
    for found in request.history:
        if found.kind == "call":
            pending.append(len(calls))
            calls.append(ToolCall(found.key, found.name, found.arguments, found.message, None))
            continue
        for position, number in enumerate(pending):
            call = calls[number]
            if (call.call_id or call.name) == found.key or (
                call.call_id and call.name == found.key
            ):
                calls[number] = ToolCall(
                    call.call_id, call.name, call.arguments, call.message, found.text, found.message
                )
                del pending[position]
                break
    return calls


__all__ = [
    "Mention",
    "MentionReader",
    "Request",
    "Shape",
    "Tool",
    "ToolCall",
    "ToolResult",
    "as_mapping",
    "canonical",
    "description_of",
    "dicts",
    "ends_with_own_prompt",
    "ends_with_result",
    "leading_system",
    "mentions",
    "result_follows",
    "text_of",
    "text_of_message",
    "tool_calls",
    "user_text",
]
