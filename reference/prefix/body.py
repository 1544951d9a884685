"""A request as a provider's body: the parts this area decides, with the marks a prompt cache
needs (`cache_control` for Anthropic, `prompt_cache_breakpoint` for OpenAI), the parameters
that fork a cache, and OpenAI's `prompt_cache_key`.

    body = request_body("anthropic", prompt, config.cache)
    text = canonical_body(body)   # sorted keys, two-space indent: what conformance compares

A tool is given by its name alone, the system prompt by its number (only whether two prompts
are equal is tested) and a message by its text, as the session knows them; the model's turns
between the person's messages are not this area's and are left out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .config import CacheConfig

JSON = dict[str, Any]


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
    person's messages (the newest last), the parameters and the cache key; `marked` is the
    message whose last block carries the newest mark (None: no message is marked)."""

    model: str
    system: str
    tools: tuple[str, ...]
    messages: tuple[str, ...]
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


def _anthropic(prompt: Prompt, cache: CacheConfig) -> JSON:
    placed = marks(prompt, cache)

    def control(where: str, message: int | None = None) -> JSON:
        for mark in placed:
            if mark.where == where and mark.message == message:
                # rule: pfx.cache.lifetimes
                return {"cache_control": {"type": "ephemeral", "ttl": mark.ttl}}
        return {}

    tools = [{"name": name} for name in prompt.tools]
    if tools:
        tools[-1].update(control("tools"))
    body: JSON = {
        "model": prompt.model,
        "system": [{"type": "text", "text": prompt.system, **control("system")}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": text, **control("message", i)}]}
            for i, text in enumerate(prompt.messages)
        ],
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

    items = [{"role": "system", "content": [block(prompt.system, "system")]}]
    items += [
        {"role": "user", "content": [block(text, "message", i)]}
        for i, text in enumerate(prompt.messages)
    ]
    body: JSON = {"model": prompt.model, ("input" if responses else "messages"): items}
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


_SHAPES: dict[str, Callable[[Prompt, CacheConfig], JSON]] = {
    "anthropic": _anthropic,
    "openai-chat": lambda prompt, cache: _openai(prompt, cache, responses=False),
    "openai-responses": lambda prompt, cache: _openai(prompt, cache, responses=True),
}
BODY_PROVIDERS = tuple(_SHAPES)


def request_body(provider: str, prompt: Prompt, cache: CacheConfig) -> JSON:
    """The body `provider` is sent for `prompt`."""
    if provider not in _SHAPES:
        raise ValueError(f"no request body for provider {provider!r}")
    return _SHAPES[provider](prompt, cache)


def canonical_body(body: Mapping[str, Any]) -> str:
    """The body as conformance compares it: keys sorted, two-space indent, text as it is."""
    return json.dumps(body, sort_keys=True, indent=2, ensure_ascii=False)


__all__ = ["BODY_PROVIDERS", "Params", "Prompt", "canonical_body", "marks", "request_body"]
