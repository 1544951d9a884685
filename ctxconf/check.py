"""`ctxconf check`: the gate for spec edits, every check of the spec folder in one pass."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxconf.lint import lint_spec
from ctxconf.reference import run_area_case
from ctxconf.regen import regenerate
from ctxconf.validate import validate_spec


@dataclass(frozen=True)
class Stage:
    name: str
    problems: list[str]
    seconds: float


def _loop(spec: Path) -> dict[str, Any]:
    loop: dict[str, Any] = json.loads((spec / "loop.json").read_text(encoding="utf-8"))
    return loop


def _reference_run(spec: Path) -> list[str]:
    loop = _loop(spec)
    problems = []
    for path in sorted((spec / "conformance").glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for case in doc.get("cases", []):
            try:
                outputs = run_area_case(doc.get("area", "context"), case, loop)
            except Exception as error:  # reported as a failing case, like any other
                problems.append(f"{path.name}: {case.get('name')}: the reference raised {error!r}")
                continue
            for index, (want, got) in enumerate(zip(case.get("expect", []), outputs, strict=False)):
                if want != got:
                    problems.append(f"{path.name}: {case.get('name')}: step {index} differs")
    return problems


def _regen_check(spec: Path) -> list[str]:
    result = regenerate(sorted((spec / "conformance").glob("*.json")), _loop(spec), check=True)
    return [
        f"{c.file.name}: {c.name}: "
        + (
            "disagrees with the authors' case"
            if c.authors
            else f"{len(c.steps)} expected texts are stale; run ctxconf regen"
        )
        for c in result.changes
    ] + result.errors


def check_spec(spec: Path) -> list[Stage]:
    """Run every stage; a stage after a failed validation is skipped (its input is not sound)."""
    stages: list[Stage] = []
    steps: list[tuple[str, Callable[[Path], list[str]]]] = [
        ("validate", lambda s: [str(p) for p in validate_spec(s)]),
        ("lint", lambda s: [str(f) for f in lint_spec(s)]),
        ("regen --check", _regen_check),
        ("reference", _reference_run),
    ]
    for name, stage in steps:
        start = time.perf_counter()
        problems = stage(spec)
        stages.append(Stage(name, problems, time.perf_counter() - start))
        if name == "validate" and problems:
            break
    return stages
