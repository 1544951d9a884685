"""A request as a provider's body: the parts this area decides, with the marks a prompt cache
needs (`cache_control` for Anthropic, `prompt_cache_breakpoint` for OpenAI), the parameters
that fork a cache, OpenAI's `prompt_cache_key`, and the model's answers with their reasoning as
they came.

    body = request_body("anthropic", prompt, config.cache)
    text = canonical_body(body)   # sorted keys, two-space indent: what conformance compares

A tool is given by its name alone, the system prompt by its number (only whether two prompts
are equal is tested) and a message by its text, as the session knows them. A model's answer is
kept in its provider's shape (`read_answer`) and sent back as it came, reasoning included; the
calls it makes are answered by a `Results` message after it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .config import CacheConfig

JSON = dict[str, Any]

# The reasoning parts of an answer, by its provider: Anthropic's blocks, Responses' items.
_THINKING = frozenset({"thinking", "redacted_thinking"})


@dataclass(frozen=True)
class Answer:
    """The model's answer as its provider sent it: Anthropic's content blocks, Responses' output
    items, Gemini's parts, or Chat's one message; each part a JSON object, never changed."""

    provider: str
    parts: tuple[JSON, ...]


@dataclass(frozen=True)
class Result:
    """The answer to one call of the model: the call's id (None: the provider gave none), the
    tool's name and what the harness answers."""

    call: str | None
    tool: str
    text: str


@dataclass(frozen=True)
class Results:
    """The message after an answer that makes calls: each call's result, in the answer's order."""

    results: tuple[Result, ...]


# A message of the history: the person's or the harness's text, an answer, or the results.
Message = str | Answer | Results


def read_answer(provider: str, body: Mapping[str, Any]) -> Answer:
    """The answer a provider's (unstreamed) response body holds, as it came."""
    if provider == "anthropic":
        parts = body["content"]
    elif provider == "openai-responses":
        parts = body["output"]
    elif provider == "gemini":
        parts = body["candidates"][0]["content"]["parts"]
    elif provider == "openai-chat":
        parts = [body["choices"][0]["message"]]
    else:
        raise ValueError(f"no answer in provider {provider!r}'s shape")
    if not all(isinstance(part, dict) for part in parts):
        raise ValueError("each part of an answer is a JSON object")
    return Answer(provider, tuple(parts))


def answer_calls(answer: Answer) -> tuple[tuple[str | None, str], ...]:
    """The calls an answer makes, in order: each call's id and tool name."""
    calls: list[tuple[str | None, str]] = []
    for part in answer.parts:
        if answer.provider == "anthropic" and part.get("type") == "tool_use":
            calls.append((part["id"], part["name"]))
        elif answer.provider == "openai-responses" and part.get("type") == "function_call":
            calls.append((part["call_id"], part["name"]))
        elif answer.provider == "gemini" and "functionCall" in part:
            call = part["functionCall"]
            calls.append((call.get("id"), call["name"]))
        elif answer.provider == "openai-chat":
            calls += [(c["id"], c["function"]["name"]) for c in part.get("tool_calls") or []]
    return tuple(calls)


def without_reasoning(answer: Answer) -> Answer:
    """The answer with its reasoning left out, every other part as it came."""
    parts: list[JSON] = []
    for part in answer.parts:
        if answer.provider == "anthropic" and part.get("type") in _THINKING:
            continue
        if answer.provider == "openai-responses" and part.get("type") == "reasoning":
            continue
        if answer.provider == "gemini":
            if part.get("thought") is True:
                continue
            part = {key: value for key, value in part.items() if key != "thoughtSignature"}
        if answer.provider == "openai-chat":
            part = {key: value for key, value in part.items() if key != "reasoning_content"}
        parts.append(part)
    return Answer(answer.provider, tuple(parts))


@dataclass(frozen=True)
class Params:
    """The parameters that fork a provider's cache besides the model; None: not sent."""

    tool_choice: str | None = None
    effort: str | None = None
    thinking: int | None = None  # the budget in tokens

    def updated(self, changes: Mapping[str, Any]) -> Params:
        return Params(
            changes.get("tool_choice", self.tool_choice),
            changes.get("effort", self.effort),
            changes.get("thinking", self.thinking),
        )


@dataclass(frozen=True)
class Prompt:
    """One request as the cache reads it: model, system prompt (its stand-in), tools, the
    messages (the newest last: the person's and the harness's texts, the model's answers and
    the results of their calls), the parameters and the cache key; `marked` is the message
    whose last block carries the newest mark (None: no message is marked), never an answer."""

    model: str
    system: str
    tools: tuple[str, ...]
    messages: tuple[Message, ...]
    params: Params
    key: str | None
    marked: int | None


@dataclass(frozen=True)
class _Mark:
    where: str  # "tools", "system" or "message"
    ttl: str
    message: int | None = None


def marks(prompt: Prompt, cache: CacheConfig) -> list[_Mark]:
    """Where the request marks its prefix, in the provider's order: tools, system, messages."""
    found: list[_Mark] = []
    # rule: pfx.cache.marks
    # rule: pfx.cache.lifetimes
    # The tools and the system prompt end the part that lives the whole session: the tools'
    # entry outlives a prompt made again, the prompt's a history started over.
    if prompt.tools:
        found.append(_Mark("tools", cache.prefix_ttl))
    found.append(_Mark("system", cache.prefix_ttl))
    # rule: pfx.cache.limit
    # Only the newest message: the request before marked its own newest, and the provider's
    # lookback reads that entry back; a mark per message passes the limit by the fourth.
    if prompt.marked is not None:
        found.append(_Mark("message", cache.message_ttl, prompt.marked))
    if len(found) > cache.max_marks:
        # The tools' mark goes first: the system prompt's covers the tools too.
        found = found[len(found) - cache.max_marks :]
    return found


def _answers_of(provider: str, prompt: Prompt) -> None:
    # An answer goes back only in its own provider's shape: its reasoning is bound to it.
    for message in prompt.messages:
        if isinstance(message, Answer) and message.provider != provider:
            raise ValueError(
                f"an answer in {message.provider}'s shape cannot be sent in a {provider} body"
            )


def _anthropic(prompt: Prompt, cache: CacheConfig) -> JSON:
    placed = marks(prompt, cache)

    def control(where: str, message: int | None = None) -> JSON:
        for mark in placed:
            if mark.where == where and mark.message == message:
                # rule: pfx.cache.lifetimes
                return {"cache_control": {"type": "ephemeral", "ttl": mark.ttl}}
        return {}

    def message(i: int, message: Message) -> JSON:
        if isinstance(message, Answer):
            # rule: pfx.reasoning.anthropic
            # Every block as it came, in its place: thinking and redacted_thinking before the
            # tool_use they led to, each signature unchanged.
            return {"role": "assistant", "content": list(message.parts)}
        if isinstance(message, Results):
            content: list[JSON] = [
                {"type": "tool_result", "tool_use_id": r.call, "content": r.text}
                for r in message.results
            ]
        else:
            content = [{"type": "text", "text": message}]
        content[-1].update(control("message", i))
        return {"role": "user", "content": content}

    tools = [{"name": name} for name in prompt.tools]
    if tools:
        tools[-1].update(control("tools"))
    body: JSON = {
        "model": prompt.model,
        "system": [{"type": "text", "text": prompt.system, **control("system")}],
        "messages": [message(i, m) for i, m in enumerate(prompt.messages)],
    }
    if tools:
        body["tools"] = tools
    # rule: pfx.cache.params
    if prompt.params.tool_choice is not None:
        body["tool_choice"] = {"type": prompt.params.tool_choice}
    if prompt.params.effort is not None:
        body["output_config"] = {"effort": prompt.params.effort}
    if prompt.params.thinking is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": prompt.params.thinking}
    return body


def _openai(prompt: Prompt, cache: CacheConfig, *, responses: bool) -> JSON:
    # OpenAI marks content blocks only: the system prompt's mark covers the tools before it,
    # and a mark names no lifetime (the request's prompt_cache_options does). Its reasoning
    # knob is the effort: a thinking budget is Anthropic's alone.
    placed = {(m.where, m.message) for m in marks(prompt, cache)}
    kind = "input_text" if responses else "text"

    def block(text: str, where: str, message: int | None = None) -> JSON:
        part: JSON = {"type": kind, "text": text}
        if (where, message) in placed:
            part["prompt_cache_breakpoint"] = {"mode": "explicit"}
        return part

    def items(i: int, message: Message) -> list[JSON]:
        if isinstance(message, Answer):
            # rule: pfx.reasoning.responses
            # rule: pfx.reasoning.chat
            # Responses' output items, reasoning and its encrypted_content among them, or
            # Chat's message with its reasoning_content, as they came.
            return list(message.parts)
        if isinstance(message, Results):
            last = len(message.results) - 1
            if responses:
                return [
                    {
                        "type": "function_call_output",
                        "call_id": r.call,
                        "output": [block(r.text, "message" if k == last else "", i)],
                    }
                    for k, r in enumerate(message.results)
                ]
            return [
                {
                    "role": "tool",
                    "tool_call_id": r.call,
                    "content": [block(r.text, "message" if k == last else "", i)],
                }
                for k, r in enumerate(message.results)
            ]
        return [{"role": "user", "content": [block(message, "message", i)]}]

    sent = [{"role": "system", "content": [block(prompt.system, "system")]}]
    for i, message in enumerate(prompt.messages):
        sent += items(i, message)
    body: JSON = {"model": prompt.model, ("input" if responses else "messages"): sent}
    if prompt.tools:
        body["tools"] = [
            {"type": "function", "name": name}
            if responses
            else {"type": "function", "function": {"name": name}}
            for name in prompt.tools
        ]
    # rule: pfx.cache.params
    if prompt.params.tool_choice is not None:
        body["tool_choice"] = prompt.params.tool_choice
    if prompt.params.effort is not None:
        if responses:
            body["reasoning"] = {"effort": prompt.params.effort}
        else:
            body["reasoning_effort"] = prompt.params.effort
    # rule: pfx.cache.key
    if prompt.key is None:
        raise ValueError("an OpenAI body needs the session's id for its prompt_cache_key")
    body["prompt_cache_key"] = prompt.key
    return body


def _gemini(prompt: Prompt, cache: CacheConfig) -> JSON:
    # Gemini caches implicitly: no marks and no key. Its model is named by the request's URL,
    # not its body.
    def content(message: Message) -> JSON:
        if isinstance(message, Answer):
            # rule: pfx.reasoning.gemini
            # Each thoughtSignature on the part it came on: the first call of each step.
            return {"role": "model", "parts": list(message.parts)}
        if isinstance(message, Results):
            return {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": r.tool,
                            "response": {"result": r.text},
                            **({} if r.call is None else {"id": r.call}),
                        }
                    }
                    for r in message.results
                ],
            }
        return {"role": "user", "parts": [{"text": message}]}

    body: JSON = {
        "systemInstruction": {"parts": [{"text": prompt.system}]},
        "contents": [content(m) for m in prompt.messages],
    }
    if prompt.tools:
        body["tools"] = [{"functionDeclarations": [{"name": name} for name in prompt.tools]}]
    # rule: pfx.cache.params
    if prompt.params.tool_choice is not None:
        body["toolConfig"] = {"functionCallingConfig": {"mode": prompt.params.tool_choice.upper()}}
    thinking: JSON = {}
    if prompt.params.effort is not None:
        thinking["thinkingLevel"] = prompt.params.effort
    if prompt.params.thinking is not None:
        thinking["thinkingBudget"] = prompt.params.thinking
    if thinking:
        body["generationConfig"] = {"thinkingConfig": thinking}
    return body


_SHAPES: dict[str, Callable[[Prompt, CacheConfig], JSON]] = {
    "anthropic": _anthropic,
    "openai-chat": lambda prompt, cache: _openai(prompt, cache, responses=False),
    "openai-responses": lambda prompt, cache: _openai(prompt, cache, responses=True),
    "gemini": _gemini,
}
BODY_PROVIDERS = tuple(_SHAPES)


def request_body(provider: str, prompt: Prompt, cache: CacheConfig) -> JSON:
    """The body `provider` is sent for `prompt`."""
    if provider not in _SHAPES:
        raise ValueError(f"no request body for provider {provider!r}")
    _answers_of(provider, prompt)
    return _SHAPES[provider](prompt, cache)


def canonical_body(body: Mapping[str, Any]) -> str:
    """The body as conformance compares it: keys sorted, two-space indent, text as it is."""
    return json.dumps(body, sort_keys=True, indent=2, ensure_ascii=False)


__all__ = [
    "BODY_PROVIDERS",
    "Answer",
    "Message",
    "Params",
    "Prompt",
    "Result",
    "Results",
    "answer_calls",
    "canonical_body",
    "marks",
    "read_answer",
    "request_body",
    "without_reasoning",
]
