"""tools/mutation_scan.py as a maintainer runs it: `--under` scans one folder or file only, and a
mutant is caught by a case's texts or by its checks refusing a bundled case."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from tests.paths import ROOT

TOOL = ROOT / "tools" / "mutation_scan.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_scan", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _scan(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_a_folder_scans_its_code_and_nothing_else() -> None:
    tool = _tool()
    history = ROOT / "reference" / "history"
    sources = tool._sources(history)
    assert sources and all(history in path.parents for path in sources)
    assert not any("fuzz" in path.relative_to(ROOT / "reference").parts for path in sources)
    assert set(sources) < set(tool._sources())


def test_a_file_is_scanned_alone_from_any_working_directory(tmp_path: Path) -> None:
    texts = ROOT / "reference" / "texts.py"
    count = len(_tool().mutants(texts.read_text()))
    done = _scan("--under", str(texts), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    noun = "mutant" if count == 1 else "mutants"
    assert done.stdout.startswith(f"{count} {noun} of reference/texts.py: "), done.stdout


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("reference/nowhere", "no such file or folder"),
        ("README.md", "not inside reference/"),
        ("reference/history/case.schema.json", "not a Python file"),
    ],
    ids=["missing", "outside", "not-python"],
)
def test_a_bad_path_is_a_usage_error(given: str, why: str) -> None:
    done = _scan("--under", given, cwd=ROOT)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"--under: {given}: {why}" in done.stderr.splitlines()[-1]
    assert "Traceback" not in done.stderr


def _bundled_cases() -> list[tuple[str, Any]]:
    from ctxconf.userfiles.limits import parse_exact_float

    return [
        (doc["area"], case)
        for path in sorted((ROOT / "spec" / "conformance").glob("*.json"))
        for doc in [json.loads(path.read_text(encoding="utf-8"), parse_float=parse_exact_float)]
        for case in doc["cases"]
    ]


def _reference(problems: list[tuple[str, str, str]], *, differs: bool = False) -> Any:
    """A stand-in for a mutated reference: its texts, and checks finding `problems` in a case."""

    def checks(steps: object) -> Iterator[tuple[str, str, str]]:
        yield from problems

    def run_area_case(area: str, case: dict[str, Any], loop: object) -> list[str]:
        return [*case["expect"], "changed"] if differs else case["expect"]

    return SimpleNamespace(
        run_area_case=run_area_case,
        REGISTRY={"toy": SimpleNamespace(step_problems=checks)},
    )


def test_the_reference_as_it_is_is_not_caught() -> None:
    from ctxconf import reference

    loop = json.loads((ROOT / "spec" / "loop.json").read_text(encoding="utf-8"))
    assert not _tool().caught(reference, _bundled_cases(), loop)


@pytest.mark.parametrize(
    ("problems", "differs"),
    [([], True), ([("/steps/1", "refused", "toy-code")], False)],
    ids=["texts-differ", "checks-refuse-a-valid-case"],
)
def test_a_mutant_is_caught_by_its_texts_or_its_checks(
    problems: list[tuple[str, str, str]], differs: bool
) -> None:
    case = {"steps": [{"op": "start"}], "expect": [""]}
    assert _tool().caught(_reference(problems, differs=differs), [("toy", case)], {})
    assert not _tool().caught(_reference([]), [("toy", case)], {})
