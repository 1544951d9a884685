"""A toy area, the files an area addition is made of: copied into a copy of the repository."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

# reference/toy/: the area's folder, its record and its schemas.
INIT = '''"""A toy area: each step shows its text in the area's one template."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..area import Area
from ..texts import Texts

HERE = Path(__file__).resolve().parent


def config(loop: Mapping[str, Any]) -> Texts:
    return Texts(loop["toy"]["texts"])


def run(case: Mapping[str, Any], texts: Texts) -> list[str]:
    return [texts.render("echo", text=step["text"]) for step in case["steps"]]


AREA = Area(
    name="toy",
    anchor_prefix="toy.",
    ops=frozenset({"echo"}),
    config=config,
    run=run,
    texts=(("toy", "texts"),),
    case_schema=HERE / "case.schema.json",
    loop_schema=HERE / "loop.schema.json",
)
'''
CASE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["area", "version", "description", "cases"],
    "properties": {
        "cases": {"type": "array", "items": {"$ref": "#/$defs/case"}},
    },
    "$defs": {
        "case": {
            "type": "object",
            "required": ["name", "description", "rules", "steps", "expect"],
            "properties": {
                "steps": {"type": "array", "items": {"$ref": "#/$defs/step"}},
                "expect": {"type": "array", "items": {"type": "string"}},
            },
        },
        "step": {
            "type": "object",
            "required": ["op", "text"],
            "additionalProperties": False,
            "properties": {"op": {"const": "echo"}, "text": {"type": "string"}},
        },
    },
}
LOOP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["texts"],
    "additionalProperties": False,
    "properties": {
        "texts": {
            "type": "object",
            "required": ["echo"],
            "additionalProperties": False,
            "properties": {"echo": {"type": "string"}},
        }
    },
}


def add_toy_area(root: Path) -> list[Path]:
    """Add the toy area to the repository copy at `root`; the files it touched."""
    folder = root / "reference" / "toy"
    folder.mkdir()
    (folder / "__init__.py").write_text(INIT, encoding="utf-8")
    (folder / "case.schema.json").write_text(json.dumps(CASE_SCHEMA, indent=2), encoding="utf-8")
    (folder / "loop.schema.json").write_text(json.dumps(LOOP_SCHEMA, indent=2), encoding="utf-8")
    loop_path = root / "spec" / "loop.json"
    loop = json.loads(loop_path.read_text(encoding="utf-8"))
    loop["toy"] = {"texts": {"echo": "you said: {text}"}}
    loop_path.write_text(json.dumps(loop, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    cases = {
        "area": "toy",
        "version": loop["version"],
        "description": "The toy area: a step shows its text.",
        "cases": [
            {
                "name": "echo-twice",
                "description": "Each step shows its own text.",
                "rules": [],
                "steps": [{"op": "echo", "text": "hi"}, {"op": "echo", "text": "é 😀"}],
                "expect": ["you said: hi", "you said: é 😀"],
            }
        ],
    }
    case_path = root / "spec" / "conformance" / "toy.json"
    case_path.write_text(json.dumps(cases, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    registry = root / "reference" / "areas.py"
    text = registry.read_text(encoding="utf-8")
    line = re.search(r"^FOLDERS = \((.*)\)$", text, re.MULTILINE)
    assert line is not None, "the registry line moved"
    added = f'FOLDERS = ({line.group(1)}, "toy")'
    registry.write_text(text[: line.start()] + added + text[line.end() :], "utf-8")
    return [folder, loop_path, case_path, registry]
