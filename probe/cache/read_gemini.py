"""Gemini generateContent: each function declaration (and each other tool entry), then the parts
of `systemInstruction`, then the parts of each content. The model is in the URL, not the body."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .canonical import canonical_text
from .units import Parts, dicts, mapping, tool_spec

_DECLARATIONS = ("functionDeclarations", "function_declarations")


def _schema(declaration: Mapping[str, Any]) -> Any:
    for key in ("parameters", "parametersJsonSchema", "parameters_json_schema"):
        if key in declaration:
            return declaration[key]
    return None


def read_gemini(body: Mapping[str, Any]) -> Parts:
    parts = Parts()
    for index, tool in enumerate(dicts(body.get("tools"))):
        key = next((k for k in _DECLARATIONS if k in tool), None)
        if key is None:  # googleSearch, codeExecution, …: one unit named by its key
            name = next(iter(tool), "")
            parts.tools.append(tool_spec(name, "", tool.get(name)))
            parts.add("tools", f"tools.{index}", tool, kind="tool")
            continue
        for n, declaration in enumerate(dicts(tool.get(key))):
            parts.tools.append(
                tool_spec(
                    declaration.get("name"), declaration.get("description"), _schema(declaration)
                )
            )
            parts.add("tools", f"tools.{index}.{key}.{n}", declaration, kind="tool")
    instruction = body.get("systemInstruction", body.get("system_instruction"))
    if isinstance(instruction, str):
        instruction = {"parts": [{"text": instruction}]}
    for n, part in enumerate(dicts(mapping(instruction).get("parts"))):
        parts.add("system", f"systemInstruction.parts.{n}", part, role="system")
    for index, content in enumerate(dicts(body.get("contents"))):
        role = str(content.get("role", "user"))
        header = {k: v for k, v in content.items() if k != "parts"}
        header.setdefault("role", role)
        path = f"contents.{index}"
        blocks = [(f"{path}.parts.{n}", p) for n, p in enumerate(dicts(content.get("parts")))]
        parts.add_message("messages", path, index, role, header, blocks)
    config = mapping(body.get("generationConfig", body.get("generation_config")))
    parts.params.update(
        thinking=canonical_text(config.get("thinkingConfig", config.get("thinking_config"))),
        tool_choice=canonical_text(body.get("toolConfig", body.get("tool_config"))),
    )
    return parts


__all__ = ["read_gemini"]
