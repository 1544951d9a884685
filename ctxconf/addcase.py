"""Adding a case from a short YAML file: the steps as written, the expected texts from the reference
of the case file's area."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ctxconf.casefile import case_names, with_case
from ctxconf.reference import run_area_case
from ctxconf.validate import validate_files

_CASE_KEYS = ("name", "description", "rules", "limits", "steps")


@dataclass(frozen=True)
class AddCaseError(Exception):
    """The YAML file or the case it describes cannot be added; `problems` say where."""

    problems: tuple[str, ...]

    def __str__(self) -> str:
        return "\n".join(self.problems)


def load_yaml_cases(path: Path) -> list[dict[str, Any]]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise AddCaseError(
            (f"{where}: not valid YAML: {getattr(error, 'problem', error)}",)
        ) from None
    cases = data if isinstance(data, list) else [data]
    if not all(isinstance(case, dict) for case in cases):
        raise AddCaseError((f"{path}: expected a case (a mapping) or a list of cases",))
    # Key order as a person reads a case file, whatever order the YAML used.
    return [{key: case[key] for key in (*_CASE_KEYS, *case) if key in case} for case in cases]


def add_cases(yaml_path: Path, case_file: Path, loop: Mapping[str, Any]) -> list[str]:
    """Add the YAML file's cases to `case_file`, validated, written atomically; their names.

    `loop` is the spec's parsed loop.json; the cases run in the reference of the file's area."""
    cases = load_yaml_cases(yaml_path)
    existing = set(case_names([case_file]))
    text = case_file.read_text(encoding="utf-8")
    try:
        area = json.loads(text).get("area", "context")
    except (ValueError, AttributeError):
        raise AddCaseError((f"{case_file}: not a case file; run ctxconf validate",)) from None
    for index, case in enumerate(cases):
        if case.get("name") in existing:
            raise AddCaseError(
                (
                    f"{yaml_path}: case {index}: {case_file} already has a case named "
                    f"{case['name']!r}",
                )
            )
        try:
            case["expect"] = run_area_case(area, case, loop)
        except (KeyError, TypeError, ValueError) as error:
            raise AddCaseError(
                (
                    f"{yaml_path}: case {index}: the reference cannot run it: {error!r}; "
                    "check its steps against the case schema",
                )
            ) from None
        text = with_case(text, case)
    # Validated as the file it will become, in its own folder, so the spec's version applies.
    fd, temp = tempfile.mkstemp(prefix=f".{case_file.name}.", suffix=".json", dir=case_file.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        problems = validate_files([Path(temp)])
        if problems:
            raise AddCaseError(
                tuple(str(p).replace(Path(temp).name, case_file.name) for p in problems)
            )
        os.replace(temp, case_file)
    finally:
        Path(temp).unlink(missing_ok=True)
    return [case["name"] for case in cases]
