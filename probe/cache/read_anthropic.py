"""Anthropic Messages: `tools`, then `system` (a string or blocks), then each message's blocks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .canonical import canonical_text
from .request import CacheSettings
from .units import Parts, blocks_of, dicts, mapping, tool_spec, ttl_of

_MESSAGE_LISTS = ("content",)


def _images(parts: Parts) -> str:
    present = any(b'"type":"image"' in u.data for u in parts.units if u.section == "messages")
    return "present" if present else "absent"


def read_anthropic(body: Mapping[str, Any]) -> Parts:
    parts = Parts()
    for index, tool in enumerate(dicts(body.get("tools"))):
        parts.tools.append(
            tool_spec(
                tool.get("name") or tool.get("type"),
                tool.get("description"),
                tool.get("input_schema"),
            )
        )
        parts.add("tools", f"tools.{index}", tool, kind="tool")
    system = body.get("system")
    if isinstance(system, str):
        if system:
            parts.add("system", "system", {"type": "text", "text": system}, role="system")
    else:
        for index, block in enumerate(blocks_of(system)):
            parts.add("system", f"system.{index}", block, role="system")
    for index, message in enumerate(dicts(body.get("messages"))):
        role = str(message.get("role", ""))
        header = {k: v for k, v in message.items() if k not in _MESSAGE_LISTS}
        content = message.get("content")
        path = f"messages.{index}.content"
        blocks = (
            [(path, block) for block in blocks_of(content)]
            if isinstance(content, str)
            else [(f"{path}.{n}", block) for n, block in enumerate(blocks_of(content))]
        )
        parts.add_message("messages", f"messages.{index}", index, role, header, blocks)
    output_config = mapping(body.get("output_config"))
    parts.params.update(
        thinking=canonical_text(body.get("thinking")),
        effort=canonical_text(output_config.get("effort")),
        tool_choice=canonical_text(body.get("tool_choice")),
        images=_images(parts),
    )
    parts.settings = CacheSettings(auto_ttl=ttl_of(body))
    return parts


__all__ = ["read_anthropic"]
