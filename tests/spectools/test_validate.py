"""`ctxconf validate` and `ctxconf.spectools.validate`: the bundled spec is valid, and each
broken file is refused with the place of what is wrong.

Every broken file is the bundled one with one thing changed, so these tests follow the spec.
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.specdata.problems import Problem
from ctxconf.spectools.validate import UnusableInput, validate_files, validate_spec
from tests.cli import Done
from tests.cli import ctxconf as run_ctxconf

SPEC = bundled_spec_dir()
CASE_FILE = SPEC / "conformance" / "context.json"
CASES: dict[str, Any] = json.loads(CASE_FILE.read_text(encoding="utf-8"))
LOOP: dict[str, Any] = json.loads((SPEC / "loop.json").read_text(encoding="utf-8"))


def ctxconf(*args: str | Path, cwd: Path | None = None) -> Done:
    return run_ctxconf(*args, cwd=cwd, expect=None)


def expect_exit(result: Done, code: int) -> None:
    assert result.returncode == code, (
        f"exit {result.returncode}, wanted {code}\n"
        f"--- stdout\n{result.stdout}--- stderr\n{result.stderr}"
    )


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def line_of(text: str, needle: str, occurrence: int = 0) -> int:
    """The line (from 1) of the `occurrence`-th appearance of `needle` in `text`."""
    at = -1
    for _ in range(occurrence + 1):
        at = text.index(needle, at + 1)
    return text.count("\n", 0, at) + 1


def first_case_with(steps: int) -> int:
    return next(i for i, case in enumerate(CASES["cases"]) if len(case["steps"]) >= steps)


# --- one change each -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Broken:
    name: str
    change: Callable[[dict[str, Any]], None]
    pointer: str
    code: str
    says: str
    # A text on the reported line, and which of its appearances it is (None: not checked).
    marker: str | None = None
    occurrence: int = 0


def _set_id(data: dict[str, Any]) -> None:
    data["cases"][0]["steps"][1]["id"] = "#G001"


def _unknown_op(data: dict[str, Any]) -> None:
    data["cases"][0]["steps"][1]["op"] = "rewind"


def _read_without_path(data: dict[str, Any]) -> None:
    del data["cases"][0]["steps"][0]["path"]


def _three_steps_two_texts(data: dict[str, Any]) -> None:
    case = data["cases"][first_case_with(3)]
    case["steps"], case["expect"] = case["steps"][:3], case["expect"][:2]


def _duplicate_id(data: dict[str, Any]) -> None:
    steps = data["cases"][0]["steps"]
    steps[1]["id"] = steps[0]["id"]


def _duplicate_name(data: dict[str, Any]) -> None:
    data["cases"][1]["name"] = data["cases"][0]["name"]


def _unknown_step_key(data: dict[str, Any]) -> None:
    data["cases"][0]["steps"][0]["colour"] = "mauve"


def _unknown_top_key(data: dict[str, Any]) -> None:
    data["comment"] = "mauve"


def _id_on_compact(data: dict[str, Any]) -> None:
    data["cases"][0]["steps"].append({"op": "compact", "id": "#beef"})
    data["cases"][0]["expect"].append("")


def _patch_file_without_content(data: dict[str, Any]) -> None:
    data["cases"][0]["steps"].append({"op": "apply_patch", "files": [{"path": "gone.txt"}]})
    data["cases"][0]["expect"].append("")


def _two_line_description(data: dict[str, Any]) -> None:
    data["cases"][0]["description"] = "first line\nsecond line"


BROKEN = [
    Broken(
        "id-not-hex",
        _set_id,
        "/cases/0/steps/1/id",
        "schema.pattern",
        "'#G001' does not match '^#[0-9a-f]{4,}$'",
        '"#G001"',
    ),
    Broken(
        "unknown-op",
        _unknown_op,
        "/cases/0/steps/1/op",
        "schema.enum",
        "'rewind' is not one of ['read'",
        '"rewind"',
    ),
    Broken(
        "read-without-path",
        _read_without_path,
        "/cases/0/steps/0",
        "schema.required",
        "'path' is a required property (a read step {op, path, content",
    ),
    Broken(
        "three-steps-two-expected-texts",
        _three_steps_two_texts,
        f"/cases/{first_case_with(3)}/expect",
        "expect-count",
        "2 expected texts for 3 steps",
    ),
    Broken(
        "duplicate-id",
        _duplicate_id,
        "/cases/0/steps/1/id",
        "duplicate-id",
        f"id {CASES['cases'][0]['steps'][0]['id']!r} is already given to step 0",
        f'"id": "{CASES["cases"][0]["steps"][0]["id"]}"',
        1,
    ),
    Broken(
        "duplicate-case-name",
        _duplicate_name,
        "/cases/1/name",
        "duplicate-name",
        f"case name {CASES['cases'][0]['name']!r} is already used by case 0",
        f'"name": "{CASES["cases"][0]["name"]}"',
        1,
    ),
    Broken(
        "unknown-key-in-step",
        _unknown_step_key,
        "/cases/0/steps/0/colour",
        "schema.unknown-key",
        "unknown key 'colour' (allowed: op, id, path, content, offset, limit)",
        '"colour"',
    ),
    Broken(
        "unknown-key-at-top",
        _unknown_top_key,
        "/comment",
        "schema.unknown-key",
        "unknown key 'comment'",
        '"comment"',
    ),
    Broken(
        "id-on-compact",
        _id_on_compact,
        f"/cases/0/steps/{len(CASES['cases'][0]['steps'])}/id",
        "schema.unknown-key",
        "unknown key 'id' (allowed: op)",
        '"#beef"',
    ),
    Broken(
        "patch-file-without-before-or-after",
        _patch_file_without_content,
        f"/cases/0/steps/{len(CASES['cases'][0]['steps'])}/files/0",
        "schema.anyOf",
        "needs 'after' or 'before'",
    ),
    Broken(
        "description-on-two-lines",
        _two_line_description,
        "/cases/0/description",
        "schema.pattern",
        "does not match",
        "second line",
    ),
]


@pytest.fixture(params=BROKEN, ids=lambda broken: broken.name)
def broken(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Broken, Path]:
    which: Broken = request.param
    data = copy.deepcopy(CASES)
    which.change(data)
    return which, write_json(tmp_path / f"{which.name}.json", data)


def test_bundled_spec_is_valid() -> None:
    assert validate_spec(SPEC) == []


def test_head_and_tail_past_the_maximum_are_valid(tmp_path: Path) -> None:
    # The spec defines a head and tail that together exceed their maximum (ctx.cap.head-tail).
    data = copy.deepcopy(CASES)
    cap = LOOP["context"]["cap"]
    data["cases"][0]["limits"] = {"head_lines": cap["max_lines"], "tail_chars": cap["max_chars"]}
    assert validate_files([write_json(tmp_path / "overlap.json", data)]) == []


def test_bundled_spec_is_valid_from_the_command_line() -> None:
    files = 1 + len(list((SPEC / "conformance").glob("*.json")))
    result = ctxconf("validate")
    expect_exit(result, 0)
    assert result.stdout == f"ok: {files} files valid\n"


@pytest.mark.slow
def test_broken_file_is_refused_with_the_place(broken: tuple[Broken, Path]) -> None:
    which, path = broken
    problems = validate_files([path])
    # One change, one problem: nothing else in the copy is wrong.
    assert len(problems) == 1, "\n".join(map(str, problems))
    (problem,) = problems
    assert (problem.file, problem.pointer, problem.code) == (str(path), which.pointer, which.code)
    assert which.says in problem.message
    place = f"{path}:{problem.line}:{problem.column}: {which.pointer}: "
    assert str(problem).startswith(place)
    if which.marker is not None:
        text = path.read_text(encoding="utf-8")
        assert problem.line == line_of(text, which.marker, which.occurrence)


@pytest.mark.slow
def test_every_broken_file_is_reported_in_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = [Path(f"{which.name}.json") for which in BROKEN]
    for which, name in zip(BROKEN, names, strict=True):
        data = copy.deepcopy(CASES)
        which.change(data)
        write_json(tmp_path / name, data)
    result = ctxconf("validate", *names, cwd=tmp_path)
    expect_exit(result, 1)
    monkeypatch.chdir(tmp_path)  # the paths are shown as given, relative here
    expected = [str(problem) for problem in validate_files(names)]
    assert len(expected) == len(BROKEN)
    assert result.stdout.splitlines() == [
        *expected,
        f"{len(BROKEN)} problems in {len(BROKEN)} files",
    ]


@pytest.mark.slow
def test_all_problems_are_collected_in_order_of_place(tmp_path: Path) -> None:
    data = copy.deepcopy(CASES)
    for change in (_two_line_description, _set_id, _duplicate_name, _unknown_top_key):
        change(data)
    problems = validate_files([write_json(tmp_path / "many.json", data)])
    assert [p.pointer for p in problems] == [
        "/cases/0/description",
        "/cases/0/steps/1/id",
        "/cases/1/name",
        "/comment",
    ]
    assert [p.line for p in problems] == sorted(p.line for p in problems)


def test_invalid_json_is_refused_at_its_line_and_column(tmp_path: Path) -> None:
    text = CASE_FILE.read_text(encoding="utf-8")
    at = text.index('"steps": [') + len('"steps": [')
    path = tmp_path / "context.json"
    path.write_text(text[:at] + "," + text[at:], encoding="utf-8")
    line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    assert validate_files([path]) == [
        Problem(str(path), "", line, column, "invalid JSON: Expecting value", "json")
    ]
    result = ctxconf("validate", path)
    expect_exit(result, 1)
    assert result.stdout.splitlines() == [
        f"{path}:{line}:{column}: invalid JSON: Expecting value",
        "1 problem in 1 file",
    ]


def test_a_file_of_unknown_kind_is_a_problem(tmp_path: Path) -> None:
    path = write_json(tmp_path / "other.json", {"steps": []})
    (problem,) = validate_files([path])
    assert (problem.code, problem.line, problem.column) == ("kind", 1, 1)


# --- loop.json and spec folders ------------------------------------------------------------------


def spec_copy(tmp_path: Path) -> Path:
    spec = tmp_path / "spec"
    (spec / "conformance").mkdir(parents=True)
    shutil.copy(SPEC / "loop.json", spec / "loop.json")
    shutil.copy(CASE_FILE, spec / "conformance" / CASE_FILE.name)
    return spec


@pytest.mark.slow
def test_loop_json_with_a_missing_template_and_a_negative_number(tmp_path: Path) -> None:
    spec = spec_copy(tmp_path)
    loop = copy.deepcopy(LOOP)
    del loop["context"]["texts"]["read_stub"]
    loop["context"]["read"]["window"] = -3
    write_json(spec / "loop.json", loop)
    problems = validate_spec(spec)
    assert [(p.pointer, p.code, p.message) for p in problems] == [
        ("/context/read/window", "schema.minimum", "-3 is less than the minimum of 1"),
        ("/context/texts", "schema.required", "'read_stub' is a required property"),
    ]
    text = (spec / "loop.json").read_text(encoding="utf-8")
    assert problems[0].line == line_of(text, "-3")
    assert problems[1].line == line_of(text, '"texts"')
    result = ctxconf("validate", "--spec", spec)
    expect_exit(result, 1)
    assert result.stdout.splitlines() == [*map(str, problems), "2 problems in 1 file"]


def test_loop_json_cap_may_have_head_and_tail_past_the_maximum(tmp_path: Path) -> None:
    loop = copy.deepcopy(LOOP)
    loop["context"]["cap"]["head_chars"] = loop["context"]["cap"]["max_chars"]
    assert validate_files([write_json(tmp_path / "loop.json", loop)]) == []


def test_case_file_version_must_be_the_spec_version(tmp_path: Path) -> None:
    spec = spec_copy(tmp_path)
    data = copy.deepcopy(CASES)
    data["version"] = "0.0.1"
    write_json(spec / "conformance" / CASE_FILE.name, data)
    (problem,) = validate_spec(spec)
    assert (problem.pointer, problem.code) == ("/version", "version")
    assert f"'0.0.1' is not the spec's {LOOP['version']!r}" in problem.message


@pytest.mark.slow
def test_a_spec_folder_given_as_a_file_stands_for_its_files(tmp_path: Path) -> None:
    spec = spec_copy(tmp_path)
    result = ctxconf("validate", spec)
    expect_exit(result, 0)
    assert result.stdout == "ok: 2 files valid\n"


# --- unusable arguments --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["missing.json"], "missing.json: no such file"),
        (["--spec", "nowhere"], "nowhere: no such folder"),
        (["--spec", "."], "is not a spec folder"),
        (["."], "is a folder but not a spec folder"),
    ],
    ids=["missing-file", "missing-spec-folder", "not-a-spec-folder", "folder-as-file"],
)
def test_unusable_arguments_exit_2(tmp_path: Path, args: list[str], says: str) -> None:
    result = ctxconf("validate", *args, cwd=tmp_path)
    expect_exit(result, 2)
    assert says in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_unusable_input_is_raised_by_the_library(tmp_path: Path) -> None:
    with pytest.raises(UnusableInput) as raised:
        validate_files([tmp_path / "missing.json"])
    assert raised.value.hint
    with pytest.raises(UnusableInput):
        validate_spec(tmp_path)


def test_a_file_that_is_not_utf8_is_refused_at_the_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{\n  "area": "caf\xe9"}\n')
    (problem,) = validate_files([path])
    assert (problem.code, problem.line, problem.column) == ("encoding", 2, 15)


def test_a_given_id_that_the_session_would_give_another_step_is_refused(tmp_path: Path) -> None:
    case_file = tmp_path / "mixed.json"
    case_file.write_text(json.dumps({
        "area": "context", "version": "3.1.0", "description": "d",
        "cases": [{"name": "mixed", "description": "d", "rules": ["ctx.id.number"],
                   "steps": [{"op": "output", "tool": "bash", "args": {}, "text": "a",
                              "id": "#0002"},
                             {"op": "output", "tool": "bash", "args": {}, "text": "b"}],
                   "expect": ["", ""]}]}), encoding="utf-8")
    problems = validate_files([case_file])
    assert [p.pointer for p in problems] == ["/cases/0/steps/1"]
    assert "session numbers it #0002" in problems[0].message


def test_a_lone_surrogate_is_not_text(tmp_path: Path) -> None:
    case_file = tmp_path / "surrogate.json"
    case_file.write_text(
        '{"area": "context", "version": "3.1.0", "description": "d", "cases": [{"name": "s", '
        '"description": "d", "rules": ["ctx.text.hash"], "steps": [{"op": "read", "path": "a", '
        '"content": "x\\ud800"}], "expect": [""]}]}',
        encoding="utf-8",
    )
    problems = validate_files([case_file])
    assert [(p.pointer, p.code) for p in problems] == [("/cases/0/steps/0/content", "not-text")]
    assert "lone surrogate U+D800 at character 1" in problems[0].message
