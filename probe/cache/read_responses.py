"""OpenAI Responses: `tools`, then `instructions` and the leading system and developer items,
then every other input item (a message's content blocks; a call, its output or a reasoning item
as one unit each)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .canonical import canonical_text
from .read_chat import openai_settings
from .request import Section
from .units import Parts, blocks_of, dicts, mapping, tool_spec

_SYSTEM_ROLES = ("system", "developer")
_TEXT_TYPES = ("input_text", "output_text")


def _block(block: Any) -> Any:
    """An `input_text` or `output_text` block reads as a text block: the same tokens."""
    if isinstance(block, Mapping) and block.get("type") in _TEXT_TYPES:
        return {**block, "type": "text"}
    return block


def _item_role(item: Mapping[str, Any]) -> str:
    if isinstance(item.get("role"), str):
        return str(item["role"])
    return "tool" if str(item.get("type", "")).endswith("_output") else "assistant"


def read_responses(body: Mapping[str, Any]) -> Parts:
    parts = Parts()
    for index, tool in enumerate(dicts(body.get("tools"))):
        parts.tools.append(
            tool_spec(
                tool.get("name") or tool.get("type"),
                tool.get("description"),
                tool.get("parameters"),
            )
        )
        parts.add("tools", f"tools.{index}", tool, kind="tool")
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        parts.add("system", "instructions", {"type": "text", "text": instructions}, role="system")
    raw = body.get("input")
    items = dicts(raw) if isinstance(raw, list) else [{"role": "user", "content": raw or ""}]
    in_system = True
    for index, item in enumerate(items):
        role = _item_role(item)
        in_system = in_system and role in _SYSTEM_ROLES
        section: Section = "system" if in_system else "messages"
        path = f"input.{index}" if isinstance(raw, list) else "input"
        if "content" in item and item.get("type", "message") == "message":
            header = {k: v for k, v in item.items() if k not in ("content", "type")}
            content = item.get("content")
            blocks = (
                [(path + ".content", _block(b)) for b in blocks_of(content)]
                if isinstance(content, str)
                else [(f"{path}.content.{n}", _block(b)) for n, b in enumerate(blocks_of(content))]
            )
            parts.add_message(section, path, index, role, header, blocks)
        else:
            parts.add(section, path, item, role=role, message=index)
    reasoning = dict(mapping(body.get("reasoning")))
    effort = reasoning.pop("effort", None)
    parts.params.update(
        thinking=canonical_text(reasoning or None),
        effort=canonical_text(effort),
        tool_choice=canonical_text(body.get("tool_choice")),
        prompt_cache_key=canonical_text(body.get("prompt_cache_key")),
    )
    parts.settings = openai_settings(body)
    return parts


__all__ = ["read_responses"]
