"""The schemas in schemas/: valid against their metaschema, met by the bundled spec files, and in
step with the reference (its templates, its ops, its cap)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import ctxconf.reference
from ctxconf.reference import REGISTRY
from ctxconf.reference.context import adapter
from ctxconf.reference.context.config import Limits
from ctxconf.specdata.paths import bundled_spec_dir, schemas_dir
from ctxconf.specdata.schemas import CASES, LOOP, schema_validator, spec_validator

SCHEMAS = schemas_dir()
SPEC = bundled_spec_dir()
REFERENCE = Path(ctxconf.reference.__file__).resolve().parent
ALL_SCHEMAS = sorted(SCHEMAS.rglob("*.json"))
CASE_FILES = sorted((SPEC / "conformance").glob("*.json"))


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_schemas_are_there() -> None:
    names = {path.name for path in ALL_SCHEMAS}
    assert {"loop.schema.json", "cases.schema.json"} <= names


@pytest.mark.parametrize("path", ALL_SCHEMAS, ids=lambda p: str(p.relative_to(SCHEMAS)))
def test_schema_is_valid_against_its_metaschema(path: Path) -> None:
    schema = load(path)
    assert schema.get("$schema") == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def errors(schema_name: str, path: Path) -> list[str]:
    validator = schema_validator(SCHEMAS / schema_name)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(load(path))]


def spec_errors(kind: str, path: Path) -> list[str]:
    """What the schema of a spec file of `kind` finds, every registered area in it."""
    validator = spec_validator(kind)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(load(path))]


def test_bundled_loop_json_is_valid() -> None:
    assert spec_errors(LOOP, SPEC / "loop.json") == []


@pytest.mark.slow
@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.name)
def test_bundled_case_file_is_valid(path: Path) -> None:
    assert spec_errors(CASES, path) == []


def test_loop_schema_requires_exactly_the_templates_the_reference_renders() -> None:
    rendered = {"id"}  # the id template is rendered through a name held in a variable
    for source in REFERENCE.rglob("*.py"):
        rendered |= set(re.findall(r'render\(\s*"(\w+)"', source.read_text(encoding="utf-8")))
    defs = load(SCHEMAS / "loop.schema.json")["$defs"]
    note = {name for name, value in defs["note"]["properties"].items() if value["type"] == "string"}
    sections = [note]
    # An area with a loop.json schema of its own holds its templates there.
    own = [
        load(area.loop_schema)["properties"]["texts"]
        for area in REGISTRY.values()
        if area.loop_schema
    ]
    for texts in (defs["texts"], defs["prefix_texts"], *own):
        assert set(texts["required"]) == set(texts["properties"])
        assert texts["additionalProperties"] is False
        sections.append(set(texts["properties"]))
    templates = set().union(*sections)
    # One name, one template: a name in two sections could hide a template nobody renders.
    assert sum(map(len, sections)) == len(templates)
    assert templates == rendered


def test_loop_schema_cap_is_the_reference_cap() -> None:
    cap = load(SCHEMAS / "loop.schema.json")["$defs"]["cap"]
    fields = {field.name for field in dataclasses.fields(Limits)}
    assert set(cap["required"]) == set(cap["properties"]) == fields
    limits = load(SCHEMAS / "areas" / "context.schema.json")["$defs"]["limits"]
    assert set(limits["properties"]) == fields


def test_cases_schema_has_one_step_shape_per_reference_op() -> None:
    defs = load(SCHEMAS / "areas" / "context.schema.json")["$defs"]
    assert set(defs["op"]["enum"]) == set(adapter.OPS)
    branches = defs["step"]["allOf"]
    assert {b["if"]["properties"]["op"]["const"] for b in branches} == set(adapter.OPS)
    for branch in branches:
        op = branch["if"]["properties"]["op"]["const"]
        shape = defs[branch["then"]["$ref"].removeprefix("#/$defs/")]
        assert shape["properties"]["op"] == {"const": op}
        assert "additionalProperties" not in shape  # open: the case file closes it
        assert shape["title"].startswith(f"{op} step ")


def _shared(path: Path) -> set[str]:
    """The shapes a case file closes and a run request leaves open: each area's case fields and
    step shapes, and the fields every case has."""
    defs = load(path)["$defs"]
    if path.name == "cases.schema.json":
        return {f"{path.name}/$defs/case"}
    return {
        f"{path.name}/$defs/{name}"
        for name, shape in defs.items()
        if name == "case" or "const" in shape.get("properties", {}).get("op", {})
    }


def test_every_object_in_the_schemas_is_closed() -> None:
    """Each schema that describes an object with named keys refuses every other key, but for
    the shapes a case file closes where it uses them."""
    shared: set[str] = set()

    def walk(node: Any, where: str) -> list[str]:
        open_objects = []
        if isinstance(node, dict):
            closed = node.get("additionalProperties", node.get("unevaluatedProperties"))
            if "properties" in node and "allOf" not in node and where not in shared:
                if closed is not False:
                    open_objects.append(where)
            for key, value in node.items():
                if key not in ("if", "properties"):
                    open_objects.extend(walk(value, f"{where}/{key}"))
                elif key == "properties":
                    for name, sub in value.items():
                        open_objects.extend(walk(sub, f"{where}/properties/{name}"))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                open_objects.extend(walk(item, f"{where}/{index}"))
        return open_objects

    areas = sorted((SCHEMAS / "areas").glob("*.schema.json"))
    for path in (SCHEMAS / "loop.schema.json", SCHEMAS / "cases.schema.json", *areas):
        shared = _shared(path) if path.parent.name == "areas" or "cases" in path.name else set()
        assert walk(load(path), path.name) == []
