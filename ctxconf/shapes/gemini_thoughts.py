"""Gemini's thoughts: what a request asks (`generationConfig.thinkingConfig`; the thought's
text shown as a part of its own when `includeThoughts`), the `thoughtSignature` on the first
`functionCall` part of an answer, signed over that part, and the API's check of the current
turn's signatures (since the last user text): one that is not the part's own is refused, and on
a model that needs them (Gemini 3: `ctxconf/cache/data/reasoning.json`) so is a step whose first
call lacks it; earlier turns are not checked, and `skip_thought_signature_validator` passes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxconf.cache.canonical import canonical
from ctxconf.cache.credentials import Headers
from ctxconf.cache.reasoning_models import requires_signature

from . import wire
from .reasoning import Asked, ReasoningOptions, ReasoningWay, Thought
from .shape import Refusal
from .signing import Signer

SKIP = "skip_thought_signature_validator"
DOCS = "https://ai.google.dev/gemini-api/docs/thought-signatures"


def _config(body: Mapping[str, Any]) -> Mapping[str, Any]:
    config = body.get("generationConfig", body.get("generation_config"))
    return config if isinstance(config, Mapping) else {}


def asked(body: Mapping[str, Any], options: ReasoningOptions) -> Asked | None:
    config = _config(body)
    thinking = config.get("thinkingConfig", config.get("thinking_config"))
    if not isinstance(thinking, Mapping):
        return None
    shown = thinking.get("includeThoughts", thinking.get("include_thoughts"))
    return Asked(summary=bool(shown))


def signed_content(part: Mapping[str, Any]) -> str:
    """What a part's signature covers: its call, or its text."""
    call = part.get("functionCall", part.get("function_call"))
    if isinstance(call, Mapping):
        return canonical({"name": call.get("name"), "args": call.get("args")}).decode()
    return str(part.get("text", ""))


def sign(
    thought: Thought, body: Mapping[str, Any], calls: tuple[tuple[str, Any], ...], signer: Signer
) -> Thought:
    if not calls:
        return thought
    name, args = calls[0]
    content = signed_content({"functionCall": {"name": name, "args": args}})
    return Thought(thought.text, thought.asked, signature=signer.sign("gemini", content))


def _current_turn(contents: list[Mapping[str, Any]]) -> int:
    """Where the current turn starts: the last user content with a text part."""
    start = 0
    for index, content in enumerate(contents):
        parts = wire.dicts(content.get("parts"))
        if content.get("role", "user") == "user" and any("text" in p for p in parts):
            start = index
    return start


def _invalid(text: str) -> Refusal:
    error = {"code": 400, "message": text, "status": "INVALID_ARGUMENT"}
    return Refusal(400, {"error": error}, text)


def check(
    body: Mapping[str, Any],
    headers: Headers,
    model: str,
    signer: Signer,
    options: ReasoningOptions,
) -> Refusal | None:
    contents = wire.dicts(body.get("contents"))
    needed = requires_signature(model)
    for index in range(_current_turn(contents), len(contents)):
        content = contents[index]
        if content.get("role") != "model":
            continue
        calls = [p for p in wire.dicts(content.get("parts")) if "functionCall" in p]
        if not calls:
            continue
        first = calls[0]
        signature = first.get("thoughtSignature", first.get("thought_signature"))
        if signature == SKIP:
            continue
        if signature is None:
            if not needed:
                continue
            call = first["functionCall"]
            name = call.get("name") if isinstance(call, Mapping) else "?"
            return _invalid(
                "Function call is missing a thought_signature in functionCall parts. This is"
                " required for tools to work correctly, and missing thought_signature may lead"
                " to degraded model performance. Additional data, function call"
                f" `default_api:{name}` , position {index + 1}. Please refer to {DOCS} for more"
                " details."
            )
        if signer.check("gemini", signed_content(first), signature) is None:
            return _invalid(
                f"Unable to submit request because Thought signature is not valid. contents.{index}"
            )
    return None


REASONING = ReasoningWay(asked, sign, check)

__all__ = ["REASONING", "SKIP", "asked", "check", "sign", "signed_content"]
