"""The fixes an audit tries on a session's bodies, one at a time: each a pure function from the
bodies as sent to the bodies a harness with that fix would have sent.

- `date-frozen`: every date and clock time in the system prompt held still (`pfx.system.no-clock`);
- `nonce-removed`: the per-request `cch=` nonce of Claude Code's billing line taken out;
- `tool-order-kept`: the tool list in one order, by name (`pfx.tools.fixed`);
- `history-kept`: each request's history sent as the request before sent it, its new messages
  after it (`hist.persist.append-only`), where it has at least as many.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from typing import Any

Body = dict[str, Any]
Fix = Callable[[str, Sequence[Body]], list[Body]]

_DATE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
    r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b"
    r"|\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? +(?:\d{1,2} +)?[A-Z][a-z]+ +\d{1,2}(?:,? +\d{4})?"
    r"|\b\d{1,2}:\d{2}(?::\d{2})?(?: ?[AaPp][Mm])?\b"
)
_NONCE = re.compile(r" ?cch=[0-9a-fA-F]+;?")
# Where each shape keeps the conversation.
HISTORY_KEYS = {
    "anthropic": "messages",
    "openai-chat": "messages",
    "openai-responses": "input",
    "gemini": "contents",
}
_SYSTEM_ROLES = ("system", "developer")


def _map_strings(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_map_strings(item, change) for item in value]
    if isinstance(value, dict):
        return {key: _map_strings(item, change) for key, item in value.items()}
    return value


def _in_system(shape: str, body: Body, change: Callable[[str], str]) -> Body:
    """`body` with `change` applied to every text of its system prompt."""
    fixed = dict(body)
    for key in ("system", "instructions", "systemInstruction", "system_instruction"):
        if key in fixed:
            fixed[key] = _map_strings(fixed[key], change)
    history = HISTORY_KEYS.get(shape)
    if history and isinstance(fixed.get(history), list):
        fixed[history] = [
            _map_strings(item, change)
            if isinstance(item, dict) and item.get("role") in _SYSTEM_ROLES
            else item
            for item in fixed[history]
        ]
    return fixed


def _dates(shape: str, body: Body) -> list[str]:
    found: list[str] = []

    def collect(text: str) -> str:
        found.extend(_DATE.findall(text))
        return text

    _in_system(shape, body, collect)
    return found


def date_frozen(shape: str, bodies: Sequence[Body]) -> list[Body]:
    """Each date or time in the system prompt as the first request sent it (the n-th found
    takes the first request's n-th)."""
    if not bodies:
        return []
    first = _dates(shape, bodies[0])

    def freeze(body: Body) -> Body:
        seen = iter(range(len(first) + 10_000))

        def held(match: re.Match[str]) -> str:
            n = next(seen)
            return first[n] if n < len(first) else match.group(0)

        return _in_system(shape, body, lambda text: _DATE.sub(held, text))

    return [freeze(body) for body in bodies]


def nonce_removed(shape: str, bodies: Sequence[Body]) -> list[Body]:
    def drop(text: str) -> str:
        return _NONCE.sub("", text) if "x-anthropic-billing-header" in text else text

    return [_in_system(shape, body, drop) for body in bodies]


def _tool_name(tool: Any) -> str:
    if not isinstance(tool, dict):
        return ""
    function = tool.get("function")
    name = function.get("name") if isinstance(function, dict) else tool.get("name")
    return str(name or "")


def tool_order_kept(shape: str, bodies: Sequence[Body]) -> list[Body]:
    fixed = []
    for body in bodies:
        body = dict(body)
        tools = body.get("tools")
        if isinstance(tools, list):
            if shape == "gemini":
                tools = [
                    {**t, "functionDeclarations": sorted(t["functionDeclarations"], key=_tool_name)}
                    if isinstance(t, dict) and isinstance(t.get("functionDeclarations"), list)
                    else t
                    for t in tools
                ]
            else:
                tools = sorted(tools, key=_tool_name)
            body["tools"] = tools
        fixed.append(body)
    return fixed


def _unmarked(value: Any) -> Any:
    if isinstance(value, list):
        return [_unmarked(item) for item in value]
    if isinstance(value, dict):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    return value


def _has_mark(value: Any) -> bool:
    if isinstance(value, list):
        return any(_has_mark(item) for item in value)
    if isinstance(value, dict):
        return "cache_control" in value or any(_has_mark(v) for v in value.values())
    return False


class _Marks:
    """Whether a message holds a mark, each message object looked at once: a session's bodies
    share their history's messages, and each body holds all the ones before it."""

    def __init__(self) -> None:
        self.seen: dict[int, tuple[Any, bool]] = {}  # id -> (the message, kept alive; marked)

    def __call__(self, value: Any) -> bool:
        found = self.seen.get(id(value))
        if found is not None and found[0] is value:
            return found[1]
        marked = _has_mark(value)
        self.seen[id(value)] = (value, marked)
        return marked


def _as_sent_before(earlier: Any, later: Any, marked: Callable[[Any], bool] = _has_mark) -> Any:
    """The earlier request's message, with a mark where the later request marked its own (the
    marks are the later request's to place)."""
    kept = _unmarked(earlier) if marked(earlier) else earlier  # the same object where unmarked
    if marked(later) and isinstance(kept, dict) and isinstance(kept.get("content"), list):
        blocks = copy.deepcopy(kept["content"])
        if blocks and isinstance(blocks[-1], dict):
            blocks[-1]["cache_control"] = {"type": "ephemeral"}
        kept = {**kept, "content": blocks}
    return kept


def history_kept(shape: str, bodies: Sequence[Body]) -> list[Body]:
    key = HISTORY_KEYS.get(shape)
    fixed: list[Body] = []
    marked = _Marks()
    for body in bodies:
        history = body.get(key) if key else None
        before = fixed[-1].get(key) if fixed and key else None
        if isinstance(history, list) and isinstance(before, list) and len(history) >= len(before):
            kept = [_as_sent_before(b, h, marked) for b, h in zip(before, history, strict=False)]
            body = {**body, key: kept + history[len(before) :]}  # type: ignore[dict-item]
        fixed.append(body)
    return fixed


FIXES: dict[str, Fix] = {
    "date-frozen": date_frozen,
    "nonce-removed": nonce_removed,
    "tool-order-kept": tool_order_kept,
    "history-kept": history_kept,
}
