"""The schemas of loop.json, of a case file and of the protocol's messages, and the registry
their `$ref`s resolve through.

Each bundled area's case fields and step shapes are written once, in
schemas/areas/<area>.schema.json (schemas/areas/common.schema.json holds the values several areas
take), each with its `$id`:
the case-file schema `$ref`s them and closes them (`unevaluatedProperties: false`), and
protocol/run-request.json `$ref`s them and leaves them open. Every schema file with an `$id` is a
resource of one `referencing.Registry`; the compiled pre-check (jsonschema-rs) is given the
bundled form, the same resources embedded in one document.

An area whose record names schemas of its own (`Area.case_schema`, `Area.loop_schema`, files in its
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

import jsonschema_rs
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

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
def _resources() -> tuple[tuple[str, dict[str, Any]], ...]:
    """Every bundled schema with an `$id`, by its `$id`."""
    found = (_read(path) for path in sorted(schemas_dir().rglob("*.json")))
    return tuple((schema["$id"], schema) for schema in found if isinstance(schema.get("$id"), str))


@functools.cache
def registry() -> Registry[Any]:
    """The bundled schemas by `$id`: where every `$ref` between schema files resolves."""
    resources = [(uri, DRAFT202012.create_resource(schema)) for uri, schema in _resources()]
    registry: Registry[Any] = Registry().with_resources(resources)
    return registry.crawl()


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


def validator_for(schema: dict[str, Any]) -> Draft202012Validator:
    """A validator of `schema` whose `$ref`s to other schema files resolve by their `$id`."""
    return Draft202012Validator(schema, registry=registry())


@functools.cache
def spec_validator(kind: str) -> Draft202012Validator:
    return validator_for(spec_schema(kind))


def bundled(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with every other bundled schema embedded in its `$defs` under its own `$id`
    (2020-12's bundled form): one document any validator resolves without a registry."""
    whole = copy.deepcopy(schema)
    for uri, resource in _resources():
        if uri != whole.get("$id"):
            embedded = {key: value for key, value in resource.items() if key != "$schema"}
            whole.setdefault("$defs", {})[uri] = embedded
    return whole


@functools.cache
def compiled_spec_validator(kind: str) -> jsonschema_rs.Validator:
    """The compiled validator of a spec file of `kind`: the quick yes before the full check."""
    return jsonschema_rs.validator_for(bundled(spec_schema(kind)))


def schema_validator(path: Path) -> Draft202012Validator:
    """A validator of the schema file at `path` (a protocol message's, say)."""
    return validator_for(_read(path))
