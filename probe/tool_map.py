"""A profile's own tool for a scenario step: the harness's tool name and its arguments, written
as a template.

Most harnesses are played by the names and argument keys `mapping` knows. One whose tools are
shaped otherwise (Cline's `read_files` takes `files: [{path}]`, Open Interpreter's `execute`
takes `language` and `code`) says so in its profile:

    tools:
      read: {name: read_files, arguments: {files: [{path: "{path}"}]}}
      bash: {name: execute, arguments: {language: shell, code: "{command}"}}

The template is any JSON value; in its strings `{path}` (the file's absolute path in the work
folder), `{relative_path}` (the path as the scenario writes it) and `{command}` are replaced.
Every other value is a fixed argument, sent as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

# The placeholders each step's template may hold, and those of them one must hold: a read that
# names no file, or a command call without the command, would play nothing of the step.
PLACEHOLDERS: Mapping[str, frozenset[str]] = {
    "read": frozenset({"path", "relative_path"}),
    "bash": frozenset({"command"}),
}
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class ToolMap:
    """The harness's tool that plays one kind of step."""

    name: str
    arguments: Mapping[str, Any]

    def call(self, values: Mapping[str, str]) -> dict[str, Any]:
        """The arguments of one call, the step's values put in the template."""
        filled = _fill(dict(self.arguments), values)
        assert isinstance(filled, dict)
        return filled


def _fill(template: Any, values: Mapping[str, str]) -> Any:
    if isinstance(template, str):
        return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)
    if isinstance(template, list):
        return [_fill(item, values) for item in template]
    if isinstance(template, dict):
        return {key: _fill(value, values) for key, value in template.items()}
    if isinstance(template, Decimal):  # a user's YAML keeps a number's exact decimal
        return int(template) if template == template.to_integral_value() else float(template)
    return template


def placeholders(template: Any, at: str) -> Iterator[tuple[str, str]]:
    """Each placeholder of a template with the JSON pointer of the string that holds it."""
    if isinstance(template, str):
        for match in PLACEHOLDER.finditer(template):
            yield match.group(1), at
    elif isinstance(template, list):
        for index, item in enumerate(template):
            yield from placeholders(item, f"{at}/{index}")
    elif isinstance(template, dict):
        for key, value in template.items():
            escaped = key.replace("~", "~0").replace("/", "~1")
            yield from placeholders(value, f"{at}/{escaped}")


def template_problems(step: str, arguments: Any, at: str) -> Iterator[tuple[str, str]]:
    """(pointer, problem) for each placeholder the step does not fill, and for a template that
    holds none of those the step needs."""
    allowed = PLACEHOLDERS[step]
    seen = False
    for name, where in placeholders(arguments, at):
        if name in allowed:
            seen = True
        else:
            known = ", ".join(f"{{{p}}}" for p in sorted(allowed))
            yield where, f"{{{name}}} is not a placeholder of a {step} step (it has {known})"
    if not seen:
        needed = " or ".join(f"{{{p}}}" for p in sorted(allowed))
        yield at, f"the arguments of a {step} step must hold {needed} somewhere"


def tool_maps(data: Mapping[str, Any]) -> dict[str, ToolMap]:
    """The profile's `tools` section, as read after its schema and checks passed."""
    return {step: ToolMap(entry["name"], entry["arguments"]) for step, entry in data.items()}


__all__ = ["PLACEHOLDERS", "ToolMap", "template_problems", "tool_maps"]
