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

A run request's steps are checked by its area: `run_request_schema` adds one branch per registered
area to protocol/run-request.json, `$ref`ing the same case and step shapes the case-file schema
names for that area, open. An area whose shapes live in its own folder lends its step shape the
same way, opened (its `additionalProperties: false` left out) and embedded under an `$id` of its
own.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import jsonschema_rs

from ctxconf.reference import REGISTRY
from ctxconf.specdata.paths import schemas_dir

# jsonschema and referencing are imported where they are used: a valid file needs only the
# compiled validator, and a command that reads valid files (the reference served, a run) is
# spared their import, most of its start.
if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from referencing import Registry

LOOP, CASES = "loop", "cases"
FILES: dict[str, str] = {LOOP: "loop.schema.json", CASES: "cases.schema.json"}
RUN_REQUEST = "protocol/run-request.json"


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
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

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
    from jsonschema import Draft202012Validator

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


def _open_shapes(area: str) -> dict[str, Any] | None:
    """What the case-file schema holds a case of `area` to, by absolute `$ref`, without closing
    it: the area's case fields and its step shape; None for an area it does not name."""
    cases = _read(schemas_dir() / FILES[CASES])
    closed = cases["$defs"].get(f"{area}_case")
    if closed is None:
        return None
    base = cases["$id"]
    case_refs = [urljoin(base, part["$ref"]) for part in closed.get("allOf", []) if "$ref" in part]
    step_ref = urljoin(base, closed["properties"]["steps"]["items"]["$ref"])
    return {
        "allOf": [{"$ref": ref} for ref in case_refs],
        "properties": {"steps": {"items": {"$ref": step_ref}}},
    }


def _opened(schema: Any) -> Any:
    """`schema` with every `additionalProperties: false` left out: the same shapes, open to
    fields they do not name, as a run request's are."""
    if isinstance(schema, dict):
        return {
            key: _opened(value)
            for key, value in schema.items()
            if not (key == "additionalProperties" and value is False)
        }
    if isinstance(schema, list):
        return [_opened(item) for item in schema]
    return schema


def _own_open_shapes(name: str, path: Path, schema: dict[str, Any]) -> dict[str, Any]:
    """The steps of an area whose case shape is in its own folder: that file, opened and embedded
    in `schema`'s `$defs` under an `$id` of its own, its step shape `$ref`ed."""
    shape = _opened(_embedded(path, name, "run"))
    shape["$id"] = f"urn:ctxconf:area:{name}:run"
    schema.setdefault("$defs", {})[f"area_{name}"] = shape
    return {"properties": {"steps": {"items": {"$ref": f"{shape['$id']}#/$defs/step"}}}}


@functools.cache
def run_request_schema() -> dict[str, Any]:
    """protocol/run-request.json with each registered area's steps checked by that area's
    shapes, picked by the request's `area`."""
    schema = copy.deepcopy(_read(schemas_dir() / RUN_REQUEST))
    for name, area in REGISTRY.items():
        if area.case_schema is not None:
            shapes: dict[str, Any] | None = _own_open_shapes(name, area.case_schema, schema)
        else:
            shapes = _open_shapes(name)
        if shapes is not None:
            schema.setdefault("allOf", []).append(
                {
                    "if": {"required": ["area"], "properties": {"area": {"const": name}}},
                    "then": {"properties": {"case": shapes}},
                }
            )
    return schema


def schema_validator(path: Path) -> Draft202012Validator:
    """A validator of the schema file at `path` (a protocol message's, say); a run request's
    with every area's steps in it."""
    if path.resolve() == (schemas_dir() / RUN_REQUEST).resolve():
        return validator_for(run_request_schema())
    return validator_for(_read(path))
