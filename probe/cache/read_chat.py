"""OpenAI Chat Completions (and the local servers that speak it): `tools`, then the leading
system and developer messages, then every other message, its content blocks and tool calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .canonical import canonical_text
from .request import CacheSettings, Section
from .units import Parts, blocks_of, dicts, mapping, tool_spec

_MESSAGE_LISTS = ("content", "tool_calls")
_SYSTEM_ROLES = ("system", "developer")


def read_message_blocks(message: Mapping[str, Any], path: str) -> list[tuple[str, Any]]:
    content = message.get("content")
    blocks = (
        [(path + ".content", block) for block in blocks_of(content)]
        if isinstance(content, str)
        else [(f"{path}.content.{n}", block) for n, block in enumerate(blocks_of(content))]
    )
    for n, call in enumerate(dicts(message.get("tool_calls"))):
        blocks.append((f"{path}.tool_calls.{n}", call))
    return blocks


def openai_settings(body: Mapping[str, Any]) -> CacheSettings:
    options = mapping(body.get("prompt_cache_options"))
    retention = options.get("ttl") or body.get("prompt_cache_retention")
    slot = body.get("id_slot")
    return CacheSettings(
        mode=str(options["mode"]) if "mode" in options else None,
        retention=str(retention) if retention is not None else None,
        cache_prompt=body.get("cache_prompt") is not False,
        slot=slot if isinstance(slot, int) and not isinstance(slot, bool) else None,
    )


def read_chat(body: Mapping[str, Any]) -> Parts:
    parts = Parts()
    for index, tool in enumerate(dicts(body.get("tools"))):
        function = mapping(tool.get("function"))
        parts.tools.append(
            tool_spec(
                function.get("name") or tool.get("type"),
                function.get("description"),
                function.get("parameters"),
            )
        )
        parts.add("tools", f"tools.{index}", tool, kind="tool")
    in_system = True
    for index, message in enumerate(dicts(body.get("messages"))):
        role = str(message.get("role", ""))
        in_system = in_system and role in _SYSTEM_ROLES
        section: Section = "system" if in_system else "messages"
        header = {k: v for k, v in message.items() if k not in _MESSAGE_LISTS}
        path = f"messages.{index}"
        parts.add_message(section, path, index, role, header, read_message_blocks(message, path))
    parts.params.update(
        thinking=canonical_text(body.get("thinking")),
        effort=canonical_text(body.get("reasoning_effort")),
        tool_choice=canonical_text(body.get("tool_choice")),
        prompt_cache_key=canonical_text(body.get("prompt_cache_key")),
    )
    parts.settings = openai_settings(body)
    return parts


__all__ = ["openai_settings", "read_chat", "read_message_blocks"]
