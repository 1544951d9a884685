"""Anthropic's thinking: what a request asks (`thinking.type` `enabled` or `adaptive`), the
signature of an answer's thinking (over its text and the conversation before it, for block
binding), and the API's checks of the thinking sent back, in its order and words:

- a `thinking` block whose signature is not the one its text was given, or a
  `redacted_thinking` block whose `data` was changed: "Invalid `signature` in `thinking`
  block", no way around it;
- a tool-use turn (the body ends with tool results) whose assistant message does not start
  with its thinking: "Expected `thinking` or `redacted_thinking`, but found …";
- block binding, on a model that binds (`ctxconf/cache/data/reasoning.json`), a session that
  enforces it, or a body that sets `thinking.block_binding.prefix_mismatch_behavior` (which
  needs its beta header): a block whose conversation before it changed is refused ("bound to a
  different conversation"), or under `drop_block` dropped with every later thinking block, and
  said in `input_transformations`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxconf.cache.credentials import Headers
from ctxconf.cache.reasoning_models import binds_blocks

from . import wire
from .reasoning import Asked, ReasoningOptions, ReasoningWay, Thought, Transformed
from .shape import Refusal
from .signing import THINKING_KINDS, Signer, conversation_digest

BINDING_BETA = "thinking-binding-controls-2026-08-01"
DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"


def _invalid(text: str) -> Refusal:
    error = {"type": "invalid_request_error", "message": text}
    return Refusal(400, {"type": "error", "error": error}, text)


def asked(body: Mapping[str, Any], options: ReasoningOptions) -> Asked | None:
    thinking = body.get("thinking")
    if isinstance(thinking, Mapping) and thinking.get("type") in ("enabled", "adaptive"):
        return Asked()
    return None


def sign(
    thought: Thought, body: Mapping[str, Any], calls: tuple[tuple[str, Any], ...], signer: Signer
) -> Thought:
    messages = wire.dicts(body.get("messages"))
    bound = conversation_digest(body.get("system"), body.get("tools"), messages)
    if thought.redacted:
        return Thought(
            thought.text, thought.asked, True, sealed=signer.seal("redacted", thought.text)
        )
    return Thought(
        thought.text, thought.asked, signature=signer.sign("thinking", thought.text, bound)
    )


def _blocks(body: Mapping[str, Any]) -> list[tuple[int, int, Mapping[str, Any]]]:
    """Every thinking and redacted thinking block of the assistant's messages, placed."""
    found = []
    for i, message in enumerate(wire.dicts(body.get("messages"))):
        if message.get("role") != "assistant":
            continue
        for j, block in enumerate(wire.dicts(message.get("content"))):
            if block.get("type") in THINKING_KINDS:
                found.append((i, j, block))
    return found


def _tampered(body: Mapping[str, Any], signer: Signer) -> Refusal | None:
    for i, j, block in _blocks(body):
        if block.get("type") == "thinking":
            text = block.get("thinking")
            signature = block.get("signature")
            ok = isinstance(text, str) and signer.check("thinking", text, signature) is not None
        else:
            ok = signer.open("redacted", block.get("data")) is not None
        if not ok:
            kind = "thinking" if block.get("type") == "thinking" else "redacted_thinking"
            field = "signature" if kind == "thinking" else "data"
            return _invalid(f"messages.{i}.content.{j}: Invalid `{field}` in `{kind}` block")
    return None


def _unthought_tool_turn(body: Mapping[str, Any]) -> Refusal | None:
    """A body ending with tool results whose last assistant message starts otherwise."""
    messages = wire.dicts(body.get("messages"))
    if not messages or messages[-1].get("role") != "user":
        return None
    last = wire.dicts(messages[-1].get("content"))
    if not any(b.get("type") == "tool_result" for b in last):
        return None
    index = next(
        (n for n in range(len(messages) - 1, -1, -1) if messages[n].get("role") == "assistant"),
        None,
    )
    if index is None:
        return None
    blocks = wire.dicts(messages[index].get("content"))
    first = str(blocks[0].get("type")) if blocks else "text"
    if first in THINKING_KINDS:
        return None
    return _invalid(
        f"messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found"
        f" `{first}`. When `thinking` is enabled, a final `assistant` message must start with a"
        " thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks)."
        " We recommend you include thinking blocks from previous turns. To avoid this"
        f" requirement, disable `thinking`. Please consult our documentation at {DOCS}"
    )


def _behaviour(body: Mapping[str, Any]) -> Any:
    thinking = body.get("thinking")
    binding = thinking.get("block_binding") if isinstance(thinking, Mapping) else None
    return binding.get("prefix_mismatch_behavior") if isinstance(binding, Mapping) else None


def _has_beta(headers: Headers) -> bool:
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    return any(n.lower() == "anthropic-beta" and BINDING_BETA in v for n, v in pairs)


def _without(body: Mapping[str, Any], places: set[tuple[int, int]]) -> dict[str, Any]:
    messages = []
    for i, message in enumerate(wire.dicts(body.get("messages"))):
        content = message.get("content")
        if isinstance(content, list) and any(p[0] == i for p in places):
            content = [b for j, b in enumerate(content) if (i, j) not in places]
            message = {**message, "content": content}
        messages.append(message)
    return {**body, "messages": messages}


def _binding(body: Mapping[str, Any], headers: Headers, signer: Signer, enforced: bool) -> Any:
    behaviour = _behaviour(body)
    if behaviour is not None and not _has_beta(headers):
        return _invalid(
            "thinking.block_binding: this field requires the beta header"
            f" `anthropic-beta: {BINDING_BETA}`"
        )
    if behaviour not in (None, "error", "drop_block"):
        return _invalid(
            "thinking.block_binding.prefix_mismatch_behavior: Input should be 'error' or"
            " 'drop_block'"
        )
    if not enforced and behaviour is None:
        return None
    messages = wire.dicts(body.get("messages"))
    dropped: list[tuple[int, int]] = []
    for i, j, block in _blocks(body):
        if block.get("type") != "thinking":
            continue
        bound = signer.check("thinking", str(block.get("thinking")), block.get("signature"))
        here = conversation_digest(body.get("system"), body.get("tools"), messages[:i])
        if not dropped and bound == here:
            continue
        if behaviour != "drop_block":
            return _invalid(
                f"messages.{i}.content.{j}: Invalid `signature` in `thinking` block. The block is"
                " bound to a different conversation. Remove the block, or set"
                ' `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
            )
        dropped.append((i, j))  # this block and every later one
    if not dropped and behaviour is None:
        return None
    notes = tuple(
        {
            "type": "thinking_dropped",
            "path": f"messages.{i}.content.{j}",
            "reason": "prefix_binding_mismatch",
        }
        for i, j in dropped
    )
    return Transformed(_without(body, set(dropped)), notes)


def check(
    body: Mapping[str, Any],
    headers: Headers,
    model: str,
    signer: Signer,
    options: ReasoningOptions,
) -> Refusal | Transformed | None:
    """The thinking sent back, checked as the API checks it, when thinking is asked."""
    if asked(body, options) is None:
        return None
    refused = _tampered(body, signer) or _unthought_tool_turn(body)
    if refused is not None:
        return refused
    enforced = options.binding or binds_blocks(model)
    found: Refusal | Transformed | None = _binding(body, headers, signer, enforced)
    return found


REASONING = ReasoningWay(asked, sign, check, redacts=True)

__all__ = ["BINDING_BETA", "REASONING", "asked", "check", "sign"]
