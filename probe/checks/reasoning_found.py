"""Where an answer's reasoning stands in a later request: the answer's own message found by its
calls' ids (or its text, or Gemini's call), and its reasoning there kept as it came, changed,
moved from its place, or left out (`pfx.reasoning.*`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ctxconf.shapes import wire

Found = Literal["kept", "changed", "moved", "stripped", "absent"]
_THINKING = ("thinking", "redacted_thinking")


@dataclass(frozen=True)
class Given:
    """An answer's reasoning as the mock gave it: the log entry's number and step, its calls'
    ids and first call, its text, and the reasoning's text and signed values."""

    n: int
    step: int | None
    shape: str
    call_ids: tuple[str, ...]
    first_call: tuple[str, Any] | None
    text: str
    thought: str
    redacted: bool
    signature: str
    sealed: str

    @property
    def calls(self) -> bool:
        return bool(self.call_ids)


def given(entry: Mapping[str, Any]) -> Given | None:
    """The reasoning of an answer in the mock's log, or None for an answer that carried none."""
    thought, reply = entry.get("thought"), entry.get("reply") or {}
    if not isinstance(thought, Mapping):
        return None
    step = entry.get("step")
    ids: tuple[str, ...] = ()
    if reply.get("tool"):
        more = [str(c.get("id")) for c in reply.get("calls", [])[1:]]
        ids = (f"call_probe_{step}", *more)
    first = (str(reply["tool"]), reply.get("arguments")) if reply.get("tool") else None
    return Given(
        int(entry["n"]),
        step if isinstance(step, int) else None,
        str(entry.get("shape")),
        ids,
        first,
        str(reply.get("text") or ""),
        str(thought.get("text", "")),
        bool(thought.get("redacted")),
        str(thought.get("signature", "")),
        str(thought.get("sealed", "")),
    )


def _bare(block: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in block.items() if k != "cache_control"}


def _anthropic(g: Given, body: Mapping[str, Any]) -> Found:
    for message in wire.dicts(body.get("messages")):
        if message.get("role") != "assistant":
            continue
        blocks = wire.dicts(message.get("content"))
        ids = {str(b.get("id")) for b in blocks if b.get("type") == "tool_use"}
        texts = [str(b.get("text")) for b in blocks if b.get("type") == "text"]
        if not (ids & set(g.call_ids) if g.calls else g.text and g.text in texts):
            continue
        if g.redacted:
            want: dict[str, Any] = {"type": "redacted_thinking", "data": g.sealed}
        else:
            want = {"type": "thinking", "thinking": g.thought, "signature": g.signature}
        thinking = [_bare(b) for b in blocks if b.get("type") in _THINKING]
        if blocks and _bare(blocks[0]) == want:
            return "kept"
        if want in thinking:
            return "moved"
        return "changed" if thinking else "stripped"
    return "absent"


def _responses(g: Given, body: Mapping[str, Any]) -> Found:
    raw = body.get("input")
    items = wire.dicts(raw) if isinstance(raw, list) else []
    for at, item in enumerate(items):
        is_call = item.get("type") == "function_call" and str(item.get("call_id")) in g.call_ids
        said = wire.text_of(item.get("content")) if item.get("role") == "assistant" else None
        if not (is_call if g.calls else said and said == g.text):
            continue
        start = at
        while start > 0 and (
            items[start - 1].get("type") in ("reasoning", "function_call")
            or items[start - 1].get("role") == "assistant"
        ):
            start -= 1
        run = [i for i in items[start:at] if i.get("type") == "reasoning"]
        if any(i.get("encrypted_content") == g.sealed for i in run):
            return "kept"
        if any(i.get("encrypted_content") == g.sealed for i in items):
            return "moved"
        return "changed" if run else "stripped"
    return "absent"


def _gemini(g: Given, body: Mapping[str, Any], at: int | None = None) -> Found:
    """Gemini's calls have no ids: the answer is the content at `at` (as many as its request
    held), where that is known, else the first content with its first call."""
    if g.first_call is None:
        return "absent"
    name, args = g.first_call
    contents = wire.dicts(body.get("contents"))
    if at is not None:
        contents = contents[at : at + 1]
    for content in contents:
        parts = wire.dicts(content.get("parts"))
        calls = [p for p in parts if isinstance(p.get("functionCall"), Mapping)]
        if not calls or calls[0]["functionCall"].get("name") != name:
            continue
        if calls[0]["functionCall"].get("args") != args:
            continue
        signature = calls[0].get("thoughtSignature", calls[0].get("thought_signature"))
        if signature == g.signature:
            return "kept"
        if any(p.get("thoughtSignature") == g.signature for p in parts):
            return "moved"
        return "changed" if signature else "stripped"
    return "absent"


def _chat(g: Given, body: Mapping[str, Any]) -> Found:
    for message in wire.dicts(body.get("messages")):
        if message.get("role") != "assistant":
            continue
        ids = {str(c.get("id")) for c in wire.dicts(message.get("tool_calls"))}
        if not (ids & set(g.call_ids) if g.calls else message.get("content") == g.text):
            continue
        sent = message.get("reasoning_content")
        if sent == g.thought:
            return "kept"
        return "changed" if sent else "stripped"
    return "absent"


_FINDERS = {"anthropic": _anthropic, "openai-responses": _responses}


def found_in(g: Given, body: Mapping[str, Any], at: int | None = None) -> Found:
    """What became of `g`'s reasoning in a later request's `body`; `at`: how many contents
    the request `g` answered held (Gemini's answer stands right after them)."""
    if g.shape == "openai-responses" and not g.sealed:
        return "absent"  # a stored response's items: the provider holds them, not the body
    if g.shape == "gemini":
        return _gemini(g, body, at)
    return _FINDERS.get(g.shape, _chat)(g, body)


__all__ = ["Found", "Given", "found_in", "given"]
