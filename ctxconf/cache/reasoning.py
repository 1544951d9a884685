"""A request as a provider reads it, its model's reasoning considered: on a last-turn-only
model (`reasoning_models.py`) the provider drops every reasoning unit (Anthropic's `thinking`
and `redacted_thinking` blocks, Responses' `reasoning` items) of the messages before the last
message that is not a tool result, "as if the thinking blocks were never there": they are
neither billed nor cached. OpenAI's `reasoning.context` says it for a request (`current_turn`
drops, `all_turns` keeps), whatever the model. Each provider plays its requests read so, and
the diagnosis compares them so: a harness that leaves out what the provider drops changes
nothing, and what the provider dropped is its own doing."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

from .reasoning_models import last_turn_only
from .request import CacheRequest, Unit
from .tokens import unit_tokens

REASONING_KINDS = frozenset({"thinking", "redacted_thinking", "reasoning"})
_RESULT_KINDS = frozenset({"tool_result", "function_call_output", "functionResponse"})


def _context(request: CacheRequest) -> str | None:
    """OpenAI's `reasoning.context`, where the request sets one."""
    text = request.params.get("thinking")
    try:
        value = json.loads(text) if text else None
    except ValueError:
        return None
    context = value.get("context") if isinstance(value, dict) else None
    return context if isinstance(context, str) else None


def drops_earlier(provider: str, request: CacheRequest) -> bool:
    """Whether `provider` drops the reasoning of `request`'s earlier turns."""
    context = _context(request) if provider == "openai" else None
    if context in ("current_turn", "all_turns"):
        return context == "current_turn"
    return last_turn_only(provider, request.model)


def _last_plain_message(units: Sequence[Unit]) -> int:
    """The index of the last message that a person (or the harness for one) wrote: a user
    message with a block other than a tool result; -1 when there is none."""
    last = -1
    for unit in units:
        if unit.section == "messages" and unit.role == "user" and unit.kind not in _RESULT_KINDS:
            last = max(last, unit.message)
    return last


def _header_only(unit: Unit) -> Unit:
    """The first unit of a message, its block dropped: the message's fields stay."""
    header, _ = json.JSONDecoder().raw_decode(unit.data.decode("utf-8"))
    data = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return dataclasses.replace(unit, kind="message", data=data, tokens=unit_tokens(data))


def provider_reads(provider: str, request: CacheRequest) -> CacheRequest:
    """`request` as `provider` reads it, the reasoning it drops gone, each dropped unit's path
    in `dropped` and the message before which it drops any in `reasoning_cut`. Reading it
    again changes nothing."""
    if not drops_earlier(provider, request):
        return request
    cut = _last_plain_message(request.units)
    kept: list[Unit] = []
    dropped: list[str] = []
    seen: set[int] = set()
    for unit in request.units:
        first = unit.message not in seen
        seen.add(unit.message)
        if unit.section != "messages" or unit.kind not in REASONING_KINDS or unit.message >= cut:
            kept.append(unit)
            continue
        dropped.append(unit.path)
        if first and unit.kind != "reasoning":  # a message's first block carries its fields
            kept.append(_header_only(unit))
    if not dropped and request.reasoning_cut == cut:
        return request
    return dataclasses.replace(
        request, units=tuple(kept), dropped=request.dropped + tuple(dropped), reasoning_cut=cut
    )


__all__ = ["REASONING_KINDS", "drops_earlier", "provider_reads"]
