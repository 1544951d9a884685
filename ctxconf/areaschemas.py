"""The schemas of loop.json and of a case file, with every registered area in them.

The bundled areas' shapes are written in schemas/ (cases.schema.json, loop.schema.json). An area
whose record names schemas of its own (`Area.case_schema`, `Area.loop_schema`, files in its
folder) is added when the schemas are loaded: its name joins the areas a case file may have, its
file shape a branch of the case-file schema, its loop.json section a property of the loop schema.
Each is embedded as a resource of its own (its `$id`), so its own `$ref`s resolve inside it.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

from ctxconf.paths import schemas_dir
from ctxconf.reference import REGISTRY

LOOP, CASES = "loop", "cases"
FILES: dict[str, str] = {LOOP: "loop.schema.json", CASES: "cases.schema.json"}


def _read(path: Path) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


def _embedded(path: Path, area: str, kind: str) -> dict[str, Any]:
    schema = _read(path)
    schema.setdefault("$id", f"urn:ctxconf:area:{area}:{kind}")
    schema.pop("$schema", None)
    return schema


@functools.cache
def spec_schema(kind: str) -> dict[str, Any]:
    """The schema of a spec file of `kind` (LOOP or CASES), every registered area in it."""
    schema = copy.deepcopy(_read(schemas_dir() / FILES[kind]))
    for name, area in REGISTRY.items():
        if kind == CASES and area.case_schema is not None:
            schema["$defs"]["area"]["enum"].append(name)
            shape = _embedded(area.case_schema, name, kind)
            schema["allOf"].append(
                {
                    "if": {"required": ["area"], "properties": {"area": {"const": name}}},
                    "then": shape,
                }
            )
        if kind == LOOP and area.loop_schema is not None:
            schema["properties"][name] = _embedded(area.loop_schema, name, kind)
            schema["required"].append(name)
    return schema
