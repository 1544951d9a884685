"""The one reader of a spec folder's files: `loop.json` and the case files, each held to its
schema (`read_spec_json`), a case file to the shape every tool relies on (`read_case_file`), and a
folder's case files listed (`list_case_files`).

Every refusal is one `SpecFileError`: `file:line:column: /pointer: message`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ctxconf.reference import REGISTRY
from ctxconf.specdata.clashes import lookalike
from ctxconf.specdata.problems import Problem, document_problems
from ctxconf.userfiles.document import (
    SpecFileError,
    SpecJson,
    display,
    printable,
    read_json_document,
)

LOOP, CASES = "loop", "cases"


def kind_of(path: Path, data: object) -> str | None:
    if isinstance(data, dict):
        if "cases" in data:
            return CASES
        if any(section in data for area in REGISTRY.values() for section, _ in area.texts):
            return LOOP
    return LOOP if path.name == "loop.json" else None


def read_spec_json(
    path: Path, kind: str | None = None, *, allow: Callable[[Problem], bool] | None = None
) -> SpecJson:
    """A spec file read, parsed and held to its schema (`kind`: LOOP, CASES, or None to tell
    by its name and content); SpecFileError naming the file and the first problem's place.
    `allow` lets through the problems a tool handles itself (lint reports an unknown template,
    regen fills a missing `expect`)."""
    document = read_json_document(path)
    problems = document_problems(document, kind or kind_of(path, document.data))
    if allow is not None:
        problems = [problem for problem in problems if not allow(problem)]
    if problems:
        first = problems[0]
        more = len(problems) - 1
        tail = f" (and {more} more problem{'' if more == 1 else 's'})" if more else ""
        raise SpecFileError(
            first.file,
            first.message + tail,
            place=(first.line, first.column),
            pointer=first.pointer,
        )
    return document


def _shape_problem(data: Any) -> tuple[str, str] | None:
    """The first place where a case file lacks the shape every tool relies on, and why."""
    if not isinstance(data, dict):
        return "", 'not a case file: a case file is an object with "cases"'
    if "area" in data and not isinstance(data["area"], str):
        return "/area", "the area is a string"
    cases = data.get("cases")
    if not isinstance(cases, list):
        return "/cases", '"cases" is an array of cases'
    for index, case in enumerate(cases):
        at = f"/cases/{index}"
        if not isinstance(case, dict):
            return at, "a case is an object"
        if not isinstance(case.get("name"), str):
            return f"{at}/name", "a case has a name, a string"
        steps = case.get("steps")
        if not isinstance(steps, list):
            return f"{at}/steps", "a case's steps are an array of objects"
        for number, step in enumerate(steps):
            if not isinstance(step, dict) or not isinstance(step.get("op"), str):
                return f"{at}/steps/{number}", 'a step is an object with an "op"'
        expect = case.get("expect", [])
        if not isinstance(expect, list) or not all(isinstance(text, str) for text in expect):
            return f"{at}/expect", "the expected texts are an array of strings"
    return None


def read_case_file(path: Path, allow: Callable[[Problem], bool] | None = None) -> SpecJson:
    """A case file valid by its schema but for the problems `allow` lets through, and with the
    shape the spec tools rely on (cases, names, steps, texts) whatever those are."""
    document = read_spec_json(path, CASES, allow=allow)
    problem = _shape_problem(document.data)
    if problem is not None:
        at, reason = problem
        known = at
        while known not in document.where and known:
            known = known.rsplit("/", 1)[0]
        raise SpecFileError(
            display(path), reason, place=document.where.get(known), pointer=at, problem_code="shape"
        )
    return document


def unknown_key(problem: Problem) -> bool:
    """An unknown key: lint reports an unknown template as its own finding."""
    return problem.code == "schema.unknown-key"


def editing(problem: Problem) -> bool:
    """What a case file may hold while an editor works on it, before validate passes it:
    unknown keys (kept as they are), a case without `expect` yet (regen fills it), an id or a
    version of the wrong form (lint says so in its own words)."""
    if problem.code in ("schema.unknown-key", "schema.pattern"):
        return True
    if problem.pointer.endswith("/expect"):  # texts regen rewrites; their shape is checked apart
        return True
    return problem.code == "schema.required" and "'expect'" in problem.message


def is_case_file_name(name: str) -> bool:
    """Case files are `conformance/*.json`; a dot-file (an editor's or a writer's temporary
    file, whatever it ends with) is not one."""
    return name.endswith(".json") and not name.startswith(".")


def _inside_itself(spec_dir: Path, folder: Path) -> str | None:
    """Why `folder` (the spec's conformance/) cannot hold its cases when it is, or links to, the
    spec folder or a folder above it: its case files would be loop.json and whatever else is
    there, or the spec folder over again."""
    spec, cases = Path(os.path.realpath(spec_dir)), Path(os.path.realpath(folder))
    if cases == spec:
        return (
            "is the spec folder itself (a link to it): a spec keeps its cases in a folder of "
            "their own"
        )
    if spec.is_relative_to(cases):
        return (
            f"is {printable(str(cases))}, a folder the spec folder is in: a spec keeps its cases "
            "in a folder of their own"
        )
    return None


def _case_folder(spec_dir: Path) -> Path:
    """The spec's conformance/; SpecFileError when it is the spec folder or a folder above it."""
    folder = spec_dir / "conformance"
    inside = _inside_itself(spec_dir, folder)
    if inside is not None:
        raise SpecFileError(display(folder), inside, usable=False)
    return folder


def list_case_files(spec_dir: Path) -> list[Path]:
    """The case files of a spec folder, by name; SpecFileError when there are none to read, when
    conformance/ is the spec folder or above it, or when two names differ only by Unicode
    normalisation or case."""
    folder = _case_folder(spec_dir)
    try:
        names = sorted(entry.name for entry in os.scandir(folder))
    except FileNotFoundError:
        raise SpecFileError(
            display(folder), "no such folder: a spec keeps its cases there", usable=False
        ) from None
    except NotADirectoryError:
        raise SpecFileError(display(folder), "is not a folder", usable=False) from None
    except OSError as error:
        raise SpecFileError(
            display(folder), f"cannot be read: {error.strerror or error}", usable=False
        ) from None
    files = [folder / name for name in names if is_case_file_name(name)]
    if not files:
        raise SpecFileError(
            display(folder), "holds no case file (conformance/*.json)", usable=False
        )
    _no_lookalikes(folder, [file.name for file in files])
    return files


def _no_lookalikes(folder: Path, names: list[str]) -> None:
    clash = lookalike(names)
    if clash is not None:
        earlier, name, how = clash
        raise SpecFileError(
            display(folder / name),
            f"its name differs from {printable(earlier)}'s only by {how}: a person cannot tell "
            "the two apart, and a file system that folds names holds them as one; keep one",
            usable=False,
        )


def check_case_folder(spec_dir: Path) -> None:
    """What `list_case_files` refuses in a spec's conformance/ (itself or above the spec folder,
    look-alike names) for a command that adds to it: one that is missing, empty or unreadable
    is left for the command's own read to say."""
    folder = _case_folder(spec_dir)
    try:
        names = sorted(entry.name for entry in os.scandir(folder))
    except OSError:
        return
    _no_lookalikes(folder, [name for name in names if is_case_file_name(name)])


def read_loop(spec_dir: Path) -> dict[str, Any]:
    """The spec folder's loop.json, valid by its schema and readable by every area's reference."""
    document = read_spec_json(spec_dir / "loop.json", LOOP)
    loop: dict[str, Any] = document.data
    try:
        for area in REGISTRY.values():
            area.config(loop)
    except (ValueError, KeyError, TypeError) as error:
        raise SpecFileError(
            display(document.path), f"the reference cannot use it: {type(error).__name__}: {error}"
        ) from None
    return loop
