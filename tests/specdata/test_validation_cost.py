"""A file with one schema problem costs little more than the same file valid: `jsonschema` checks
again only the case the compiled validator names, and only the value the problem names is found
in the text (no scan of every value). Held by what each step is given, not by a clock; the
figures are bench/cost_bench.py's."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from ctxconf.specdata import problems
from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.specdata.reader import CASES
from ctxconf.spectools.validate import validate_files
from ctxconf.userfiles import document, jsonpos

COUNT, BROKEN = 600, 345


def _large(tmp_path: Path, change: Any) -> Path:
    source = json.loads(
        (bundled_spec_dir() / "conformance" / "context.json").read_text(encoding="utf-8")
    )
    cases = []
    for number in range(COUNT):
        case = copy.deepcopy(source["cases"][number % 5])
        case["name"] = f"{case['name']}-{number}"
        cases.append(case)
    change(cases)
    path = tmp_path / "large.json"
    path.write_text(json.dumps({**source, "cases": cases}, indent=2), encoding="utf-8")
    return path


class _Counting:
    """The full validator, counting the cases of each document it is given."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.given: list[int] = []

    def iter_errors(self, instance: Any) -> Any:
        self.given.append(len(instance["cases"]))
        return self.real.iter_errors(instance)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> _Counting:
    spy = _Counting(problems._validator(CASES))
    monkeypatch.setattr(problems, "_validator", lambda kind: spy)

    def no_full_scan(text: str) -> Any:
        raise AssertionError("every value's place was scanned to place one problem")

    monkeypatch.setattr(jsonpos, "positions", no_full_scan)
    monkeypatch.setattr(document, "Locator", jsonpos.Locator)
    return spy


def test_one_problem_is_checked_again_in_its_case_alone(
    tmp_path: Path, counting: _Counting
) -> None:
    path = _large(tmp_path, lambda cases: cases[BROKEN]["steps"][0].update(op="raed"))
    (problem,) = validate_files([path])
    assert problem.pointer == f"/cases/{BROKEN}/steps/0/op" and problem.code == "schema.enum"
    text = path.read_text(encoding="utf-8")
    offset = text.index('"raed"')
    assert (problem.line, problem.column) == (
        text.count("\n", 0, offset) + 1,
        offset - text.rfind("\n", 0, offset),
    )
    assert counting.given == [1]


def test_problems_in_several_cases_are_each_placed(
    tmp_path: Path, counting: _Counting
) -> None:
    def change(cases: list[dict[str, Any]]) -> None:
        cases[10]["bogus"] = 1
        cases[BROKEN]["rules"] = "x"

    path = _large(tmp_path, change)
    found = [(p.pointer, p.code) for p in validate_files([path])]
    assert found == [
        ("/cases/10/bogus", "schema.unknown-key"),
        (f"/cases/{BROKEN}/rules", "schema.type"),
    ]
    assert counting.given == [2]


def test_a_valid_file_is_not_checked_again(tmp_path: Path, counting: _Counting) -> None:
    assert validate_files([_large(tmp_path, lambda cases: None)]) == []
    assert counting.given == []
