"""A profile's config file with the probe's MCP server merged in (`mcp.merge`).

Several harnesses keep their MCP servers in the same JSON or YAML file that holds their provider
(kilo.json, `.gemini/settings.json`, `~/.hermes/config.yaml`), so appending text cannot tell
them of the server. The file's template, as the profile writes it, is read as data (YAML when
its name ends in `.yaml` or `.yml`, JSON otherwise), every string in it and in the merge is
filled string by string, the merge is deep-merged into it (mappings key by key, anything else
replaced), and the whole is written back in the file's own language. So a filled value is
escaped by the writer: a path that holds a quote cannot break the file.

In the merge, a string that is exactly `{mcp_args}` stands for the server's arguments as a
list, and as an item of a list its items are spliced in (`["{mcp_command}", "{mcp_args}"]` is
the whole command line, as opencode's `command` wants it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import yaml

MCP_ARGS = "{mcp_args}"


class ConfigTextError(ValueError):
    """The profile's text of the file is not JSON (or YAML) holding a mapping."""


def is_yaml(name: str) -> bool:
    return name.endswith((".yaml", ".yml"))


def parse_config(name: str, text: str) -> dict[str, Any]:
    """The template of file `name` as data; ConfigTextError says why it cannot be merged into."""
    try:
        data = yaml.safe_load(text) if is_yaml(name) else json.loads(text)
    except (ValueError, yaml.YAMLError) as error:
        kind = "YAML" if is_yaml(name) else "JSON"
        raise ConfigTextError(f"not {kind}: {' '.join(str(error).split())}") from None
    if data is None and is_yaml(name):
        return {}
    if not isinstance(data, dict):
        kind = "YAML" if is_yaml(name) else "JSON"
        raise ConfigTextError(f"{kind} holding a {type(data).__name__}, not a mapping")
    return data


def _text(text: str, values: Mapping[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def fill(value: Any, values: Mapping[str, str], args: list[str]) -> Any:
    """`value` with its strings (keys too) filled; `{mcp_args}` alone is the list `args`."""
    if isinstance(value, str):
        return list(args) if value == MCP_ARGS else _text(value, values)
    if isinstance(value, list):
        out: list[Any] = []
        for item in value:
            if item == MCP_ARGS:
                out.extend(args)
            else:
                out.append(fill(item, values, args))
        return out
    if isinstance(value, dict):
        return {_text(str(k), values): fill(v, values, args) for k, v in value.items()}
    return value


def deep_merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """`extra` merged into `base`: mappings merge key by key, any other value is replaced."""
    out = dict(base)
    for key, value in extra.items():
        old = out.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            out[key] = deep_merge(old, value)
        else:
            out[key] = value
    return out


def merged_config(
    name: str,
    template: str | None,
    merge: Mapping[str, Any],
    values: Mapping[str, str],
    args: list[str],
) -> str:
    """The text of file `name`: its `template` (None: the profile writes no such file) with
    `merge` merged in, both filled, in the file's own language."""
    base = fill(parse_config(name, template), values, args) if template is not None else {}
    data = deep_merge(base, fill(dict(merge), values, args))
    if is_yaml(name):
        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


__all__ = [
    "MCP_ARGS",
    "ConfigTextError",
    "deep_merge",
    "fill",
    "is_yaml",
    "merged_config",
    "parse_config",
]
