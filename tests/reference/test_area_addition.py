"""Adding an area touches its folder, its case file, its loop.json section and one registry
line, nothing else: a toy area added to a copy of the repository passes `check` and `run`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli import ctxconf_process
from tests.paths import ROOT
from tests.toy_area import add_toy_area

CODE = ("ctxconf", "reference", "runner", "probe", "spec", "schemas")


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    for name in CODE:
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    touched = add_toy_area(root)
    assert [path.relative_to(root).as_posix() for path in touched] == [
        "reference/toy",
        "spec/loop.json",
        "spec/conformance/toy.json",
        "reference/areas.py",
    ]
    return root


@pytest.mark.slow
def test_check_passes_with_the_toy_area(copy: Path) -> None:
    # A process of its own, started in the copy, imports the copy's package, toy area and all.
    done = ctxconf_process("check", "--spec", "spec", cwd=copy)
    assert "ctxconf check passed" in done.stdout


@pytest.mark.slow
def test_the_reference_runs_the_toy_cases(copy: Path) -> None:
    ctxconf_process("run", "--impl", "reference", "--area", "toy", "--json", "r.json", cwd=copy)
    results = json.loads((copy / "r.json").read_text(encoding="utf-8"))
    assert [(c["area"], c["name"], c["verdict"]) for c in results["cases"]] == [
        ("toy", "echo-twice", "pass")
    ]


@pytest.mark.slow
def test_a_toy_case_is_held_to_its_own_schema(copy: Path) -> None:
    broken = copy / "broken"
    shutil.copytree(copy / "spec", broken)
    path = broken / "conformance" / "toy.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["cases"][0]["steps"][0]["loud"] = True
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    done = ctxconf_process("validate", "--spec", "broken", cwd=copy, expect=1)
    assert "/cases/0/steps/0/loud" in done.stdout + done.stderr
