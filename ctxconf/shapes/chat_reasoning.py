"""Chat Completions' `reasoning_content`, sent by the providers that reason in it (DeepSeek,
Kimi, xAI: `ctxconf/cache/data/reasoning.json`) when the session names one: every answer
carries it, unsigned, and a provider that needs it back refuses a tool-call turn sent without
it, in its own words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxconf.cache.credentials import Headers
from ctxconf.cache.reasoning_models import chat_family

from . import wire
from .reasoning import Asked, ReasoningOptions, ReasoningWay, Thought
from .shape import Refusal
from .signing import Signer


def asked(body: Mapping[str, Any], options: ReasoningOptions) -> Asked | None:
    return None if options.chat is None else Asked(signed=False)


def sign(
    thought: Thought, body: Mapping[str, Any], calls: tuple[tuple[str, Any], ...], signer: Signer
) -> Thought:
    return thought


def check(
    body: Mapping[str, Any],
    headers: Headers,
    model: str,
    signer: Signer,
    options: ReasoningOptions,
) -> Refusal | None:
    if options.chat is None:
        return None
    refusal = chat_family(options.chat).refusal
    if refusal is None:
        return None
    for index, message in enumerate(wire.dicts(body.get("messages"))):
        called = message.get("role") == "assistant" and message.get("tool_calls")
        if called and not message.get("reasoning_content"):
            text = refusal.format(index=index)
            error = {"message": text, "type": "invalid_request_error", "param": None}
            return Refusal(400, {"error": {**error, "code": "invalid_request_error"}}, text)
    return None


REASONING = ReasoningWay(asked, sign, check)

__all__ = ["REASONING", "asked", "check", "sign"]
