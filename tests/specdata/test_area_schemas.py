"""Each area's case fields and step shapes are written once, in schemas/areas/<area>.schema.json:
the case-file schema closes them, a run request leaves them open to fields it does not know."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxconf.runner.protocol import run_request
from ctxconf.specdata.paths import bundled_spec_dir, schemas_dir
from ctxconf.specdata.schemas import (
    CASES,
    compiled_spec_validator,
    schema_validator,
    spec_validator,
)
from ctxconf.spectools.validate import validate_text
from tests.cli import ctxconf

SCHEMAS = schemas_dir()
SPEC = bundled_spec_dir()
AREA_SCHEMAS = sorted((SCHEMAS / "areas").glob("*.schema.json"))
CASE_FILES = sorted((SPEC / "conformance").glob("*.json"))
RUN_REQUEST = SCHEMAS / "protocol" / "run-request.json"
UNKNOWN = "not_a_field"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _cases() -> Iterator[tuple[str, dict[str, Any]]]:
    for path in CASE_FILES:
        data = load(path)
        for case in data["cases"]:
            yield data["area"], case


def _one_step_per_op() -> list[tuple[Path, int, int]]:
    """(case file, case, step) for the first step of each op of each area in the bundled cases."""
    seen: set[tuple[str, str]] = set()
    found = []
    for path in CASE_FILES:
        data = load(path)
        for number, case in enumerate(data["cases"]):
            for index, step in enumerate(case["steps"]):
                if (data["area"], step["op"]) not in seen:
                    seen.add((data["area"], step["op"]))
                    found.append((path, number, index))
    return found


def _step_shapes(node: Any) -> Iterator[dict[str, Any]]:
    """Every object that describes a step of one op: its `op` is a constant, and it has a title
    or other fields (an `if` that picks the shape by its op names the op alone)."""
    if isinstance(node, dict):
        fields = node.get("properties", {})
        op = fields.get("op")
        if isinstance(op, dict) and "const" in op and ("title" in node or len(fields) > 1):
            yield node
        for value in node.values():
            yield from _step_shapes(value)
    elif isinstance(node, list):
        for item in node:
            yield from _step_shapes(item)


@pytest.mark.parametrize("path", AREA_SCHEMAS, ids=lambda p: p.name)
def test_each_area_schema_has_an_id_named_after_its_file(path: Path) -> None:
    schema_id = load(path)["$id"]
    assert schema_id.endswith(f"/schemas/areas/{path.name}")


@pytest.mark.slow
@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.name)
def test_every_bundled_case_file_validates(path: Path) -> None:
    data = load(path)
    assert [error.message for error in spec_validator(CASES).iter_errors(data)] == []
    assert compiled_spec_validator(CASES).is_valid(data)


@pytest.mark.parametrize(
    ("area", "case"), list(_cases()), ids=lambda v: str(v["name"]) if isinstance(v, dict) else v
)
def test_every_run_request_the_runner_builds_validates(area: str, case: dict[str, Any]) -> None:
    request = run_request(3, area, case)
    assert [error.message for error in schema_validator(RUN_REQUEST).iter_errors(request)] == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "number", "index"),
    _one_step_per_op(),
    ids=lambda v: v.stem if isinstance(v, Path) else str(v),
)
def test_a_step_with_an_unknown_field(path: Path, number: int, index: int) -> None:
    data = load(path)
    step = data["cases"][number]["steps"][index]
    step[UNKNOWN] = True
    # A case file refuses it, in validate's words for an unknown key, and only it.
    problems = validate_text(path, json.dumps(data, indent=2))
    assert [(p.pointer, p.code) for p in problems] == [
        (f"/cases/{number}/steps/{index}/{UNKNOWN}", "schema.unknown-key")
    ]
    assert problems[0].message.startswith(f"unknown key {UNKNOWN!r} (allowed: op")
    assert not compiled_spec_validator(CASES).is_valid(data)
    # A run request lets it through: an implementation ignores fields it does not know.
    request = run_request(0, data["area"], data["cases"][number])
    assert list(schema_validator(RUN_REQUEST).iter_errors(request)) == []


@pytest.mark.slow
def test_a_case_file_with_an_unknown_step_field_is_refused_by_validate(tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    shutil.copytree(SPEC, spec)
    path = spec / "conformance" / CASE_FILES[0].name
    data = load(path)
    data["cases"][0]["steps"][0][UNKNOWN] = 1
    data["cases"][0][UNKNOWN] = 1
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    done = ctxconf("validate", "--spec", spec, expect=1)
    output = done.stdout + done.stderr
    assert f"/cases/0/steps/0/{UNKNOWN}: unknown key {UNKNOWN!r} (allowed: op" in output
    assert f"/cases/0/{UNKNOWN}: unknown key {UNKNOWN!r} (allowed: name" in output
    assert "Unevaluated" not in output


def test_a_step_shape_is_written_in_exactly_one_file() -> None:
    """Each step shape (its title and description) is in one schema file, an area's; two areas
    may each have a step of one name (`compact`), each its own shape."""
    places: dict[tuple[str, str], list[str]] = {}
    for path in sorted(SCHEMAS.rglob("*.json")):
        for shape in _step_shapes(load(path)):
            key = (str(shape.get("title")), str(shape.get("description")))
            places.setdefault(key, []).append(path.relative_to(SCHEMAS).as_posix())
    assert places, "no step shape found"
    for (title, _), files in places.items():
        assert len(files) == 1, f"{title!r} is written in {files}"
        assert files[0].startswith("areas/"), f"{title!r} is written outside schemas/areas/"
    # As text, too: no schema repeats a step shape's words under another name.
    texts = [path.read_text(encoding="utf-8") for path in SCHEMAS.rglob("*.json")]
    for _, description in places:
        assert sum(json.dumps(description) in text for text in texts) == 1, description


def _steps_of(area: str) -> list[dict[str, Any]]:
    return [step for name, case in _cases() if name == area for step in case["steps"]]


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.name)
def test_a_run_request_is_held_to_its_areas_step_shapes(path: Path) -> None:
    """A request's steps are checked by the area it names: an op of this area with its fields
    removed is refused, and so is each other area's op under this area's name."""
    validator = schema_validator(RUN_REQUEST)
    area = load(path)["area"]
    step = next(step for step in _steps_of(area) if len(step) > 1)
    bare = run_request(0, area, {"steps": [{"op": step["op"]}]})
    assert list(validator.iter_errors(bare)), f"{area}: a bare {step['op']!r} step passed"
    own = {step["op"] for step in _steps_of(area)}
    for other in {name for name, _ in _cases()} - {area}:
        for op in sorted({step["op"] for step in _steps_of(other)} - own):
            request = run_request(0, area, {"steps": [{"op": op}]})
            assert list(validator.iter_errors(request)), f"{area}: {other}'s {op!r} passed"


def test_run_request_json_names_no_area() -> None:
    """The per-area branches are added from the registry when the schema loads, so adding an
    area leaves the published file as it is."""
    assert "areas/" not in json.dumps(load(RUN_REQUEST).get("allOf", []))
