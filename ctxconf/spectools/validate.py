"""Validation of spec files: `loop.json` and case files, against their schemas and beyond.

Every problem is collected, not only the first, each with its place: the file, the JSON pointer
of the value and the line:column where that value starts. Besides the schemas (in `schemas/`),
the checks a schema cannot express are made here and reported the same way:

- a case has exactly one expected text per step;
- step ids are unique within a case, and case names within a file;
- a case file's version is that of the `loop.json` of its spec folder (`<spec>/conformance/x.json`
  beside `<spec>/loop.json`);
- a `prefix` case starts with its one `start` step, and a `response` step's body is a list of
  events exactly when it is streamed.

A path that cannot be validated at all (missing, unreadable, a folder that is not a spec folder)
raises `UnusableInput`: that is a usage error, not a problem in a file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ctxconf.reference import REGISTRY
from ctxconf.specdata.clashes import repeated_cases
from ctxconf.specdata.problems import Document, Problem, file_problems, ordered
from ctxconf.specdata.reader import CASES, kind_of, list_case_files
from ctxconf.userfiles.document import (
    SpecFileError,
    SpecJson,
    display,
    parse_json_text,
    plural,
    read_json_document,
)

# Steps that make no result, so take no number.
_NOT_RESULTS = ("compact", "reply")
_ID_DIGITS = 4


@dataclass(frozen=True)
class UnusableInput(Exception):
    """A path that cannot be validated at all; `hint` says what to give instead."""

    path: str
    reason: str
    hint: str
    code: str = "unusable-input"

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


@dataclass(frozen=True)
class _Loop:
    """What a case file is checked against: its spec's version."""

    file: str
    version: object


_display = display


def _is_spec_dir(path: Path) -> bool:
    # Whatever loop.json is (a FIFO, a folder, a dangling link), reading it says what is wrong.
    return os.path.lexists(path / "loop.json")


def spec_files(spec_dir: Path) -> list[Path]:
    """The files of a spec folder: `loop.json`, then every `conformance/*.json` by name."""
    if not spec_dir.is_dir():
        raise UnusableInput(
            str(spec_dir), "no such folder", "give a spec folder: one that holds loop.json"
        )
    if not _is_spec_dir(spec_dir):
        raise UnusableInput(
            str(spec_dir),
            "is not a spec folder: it has no loop.json",
            "give the folder that holds loop.json and conformance/",
        )
    try:
        cases = list_case_files(spec_dir)
    except SpecFileError as error:
        raise UnusableInput(
            error.file, error.reason, "a spec folder keeps its cases in conformance/*.json"
        ) from None
    return [spec_dir / "loop.json", *cases]


def collect_files(paths: Iterable[Path]) -> list[Path]:
    """The files to validate: spec folders expanded to their files, each file once."""
    files: list[Path] = []
    for path in paths:
        # os.path's checks, not Path's: a folder that cannot be looked into is no traceback.
        if os.path.isdir(path) and (_is_spec_dir(path) or path.suffix != ".json"):
            if not _is_spec_dir(path):
                raise UnusableInput(
                    str(path),
                    "is a folder but not a spec folder (it has no loop.json)",
                    "give JSON files, or a folder that holds loop.json and conformance/",
                )
            files.extend(spec_files(path))
        else:
            try:
                os.lstat(path)
            except FileNotFoundError:
                raise UnusableInput(display(path), "no such file", "check the path") from None
            except OSError as error:  # in a folder it may not look into
                reason = f"cannot be read: {error.strerror or error}"
                raise UnusableInput(display(path), reason, "give a readable JSON file") from None
            files.append(path)
    unique: dict[Path, Path] = {}
    for file in files:
        # realpath leaves a loop of links as it is: reading it then says what is wrong.
        unique.setdefault(Path(os.path.realpath(file)), file)
    return list(unique.values())


def validate_spec(spec_dir: Path) -> list[Problem]:
    """Every problem in a spec folder: its `loop.json` and every `conformance/*.json`."""
    return validate_files(spec_files(spec_dir))


def validate_files(paths: Sequence[Path]) -> list[Problem]:
    """Every problem in the given files (a spec folder stands for its files), file by file,
    then a case name two case files of one area in one folder both hold."""
    loops: dict[Path, _Loop | None] = {}
    problems: list[Problem] = []
    case_files: list[_CaseFile] = []
    for path in collect_files(paths):
        found = _validate_file(path, loops, case_files=case_files)
        problems.extend(ordered(found))
    problems.extend(_repeated_across(case_files))
    return problems


@dataclass(frozen=True)
class _CaseFile:
    path: Path
    area: str
    names: list[str]
    doc: Document


def _case_file(path: Path, doc: Document) -> _CaseFile | None:
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        return None
    names = [c.get("name") if isinstance(c, dict) else None for c in data["cases"]]
    # A case without a name keeps its place with a name no case can have.
    return _CaseFile(
        path, str(data.get("area")), [n if isinstance(n, str) else "\0" for n in names], doc
    )


def _in_spec_folder(path: Path) -> bool:
    return path.parent.name == "conformance" and os.path.isfile(path.parent.parent / "loop.json")


def _repeated_across(files: Sequence[_CaseFile]) -> Iterator[Problem]:
    """A case whose area and name a case file before it in the same spec folder holds: a run
    of that spec would run it twice. (Case files outside a spec folder run only as given.)"""
    folders: dict[Path, list[_CaseFile]] = {}
    for file in files:
        if _in_spec_folder(file.path):
            folders.setdefault(Path(os.path.realpath(file.path.parent)), []).append(file)
    for group in folders.values():
        docs = {file.path: file.doc for file in group}
        listed = [(f.path, f.area, f.names) for f in group]
        for repeat in repeated_cases(listed):
            if repeat.name == "\0":
                continue
            message = (
                f"the case {repeat.name!r} is already in {display(repeat.first_path)} "
                f"(/cases/{repeat.first_index}), of the same area: a run would run it twice"
            )
            yield docs[repeat.path].problem(
                f"/cases/{repeat.index}/name", message, "duplicate-name-across-files"
            )


def _parse(path: Path, text: str | None = None) -> Document | Problem:
    """The file's data and positions, or the one problem that keeps it from being JSON within
    the limits; a path that is no readable regular file is unusable input. With `text`, that
    text is validated as if it were the file's."""
    try:
        if text is None:
            document = read_json_document(path)
        else:
            document = SpecJson(path, text, *parse_json_text(text, display(path)))
    except SpecFileError as error:
        if not error.usable:
            raise UnusableInput(error.file, error.reason, "give a readable JSON file") from None
        return Problem(
            error.file,
            error.pointer,
            error.line or 1,
            error.column or 1,
            error.reason,
            error.problem_code,
        )
    return Document(display(path), document)


_kind = kind_of


def validate_text(path: Path, text: str) -> list[Problem]:
    """Every problem `text` would have as the file `path` (a file about to be written)."""
    return ordered(_validate_file(path, {}, text))


def _validate_file(
    path: Path,
    loops: dict[Path, _Loop | None],
    text: str | None = None,
    *,
    case_files: list[_CaseFile] | None = None,
) -> list[Problem]:
    parsed = _parse(path, text)
    if isinstance(parsed, Problem):
        return [parsed]
    kind = _kind(path, parsed.data)
    problems = file_problems(parsed, kind)
    if kind == CASES:
        problems.extend(_case_problems(parsed, _loop_for(path, loops)))
        held = _case_file(path, parsed)
        if case_files is not None and held is not None:
            case_files.append(held)
    return problems


# --- checks beyond the schemas -------------------------------------------------------------------


def _dig(data: object, *keys: str) -> object:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _load_loop(path: Path, label: str) -> _Loop | None:
    try:
        data = read_json_document(path).data
    except SpecFileError:
        return None  # it has problems of its own, reported where it is validated
    version = data.get("version") if isinstance(data, dict) else None
    return _Loop(label, version)


def _loop_for(path: Path, loops: dict[Path, _Loop | None]) -> _Loop | None:
    """The loop.json of the case file's spec folder; a case file outside a spec folder has no
    version to match."""
    beside = path.parent.parent / "loop.json"
    if _in_spec_folder(path):
        return loops.setdefault(
            Path(os.path.realpath(beside)), _load_loop(beside, _display(beside))
        )
    return None


def _case_problems(doc: Document, own: _Loop | None) -> Iterator[Problem]:
    data = doc.data
    version = _dig(data, "version")
    if own is not None and isinstance(own.version, str) and isinstance(version, str):
        if version != own.version:
            message = f"version {version!r} is not the spec's {own.version!r} (in {own.file})"
            yield doc.problem("/version", message, "version")
    cases = _dig(data, "cases")
    if not isinstance(cases, list):
        return
    names: dict[str, int] = {}
    for index, case in enumerate(cases):
        if not isinstance(case, dict):
            continue
        at = f"/cases/{index}"
        name = case.get("name")
        if isinstance(name, str):
            if name in names:
                message = f"case name {name!r} is already used by case {names[name]}"
                yield doc.problem(f"{at}/name", message, "duplicate-name")
            names.setdefault(name, index)
        yield from _step_problems(doc, at, case.get("steps"), case.get("expect"))
        area = REGISTRY.get(str(data.get("area")))
        steps = case.get("steps")
        if area is not None and area.step_problems is not None and isinstance(steps, list):
            for below, message, code in area.step_problems(steps):
                yield doc.problem(f"{at}{below}", message, code)
        # A head and a tail may together exceed their maximum: the spec defines that
        # (ctx.cap.head-tail), so any positive limits the schema allows are valid.


def _step_problems(doc: Document, at: str, steps: object, expect: object) -> Iterator[Problem]:
    if not isinstance(steps, list):
        return
    if isinstance(expect, list) and len(expect) != len(steps):
        message = (
            f"{plural(len(expect), 'expected text')} for {plural(len(steps), 'step')}: "
            "give exactly one per step, in order"
        )
        yield doc.problem(f"{at}/expect", message, "expect-count")
    ids: dict[str, int] = {}
    numbered: dict[str, int] = {}  # the ids the session gives the steps that carry none
    results = 0
    for index, step in enumerate(steps):
        if not isinstance(step, dict) or step.get("op") in _NOT_RESULTS:
            continue
        results += 1
        given = step.get("id")
        if isinstance(given, str):
            if given in ids:
                message = f"id {given!r} is already given to step {ids[given]} of this case"
                yield doc.problem(f"{at}/steps/{index}/id", message, "duplicate-id")
            elif given in numbered:
                message = (
                    f"id {given!r} is the number the session gives step {numbered[given]}, "
                    "which carries no id: give every result step its id, or none"
                )
                yield doc.problem(f"{at}/steps/{index}/id", message, "duplicate-id")
            ids.setdefault(given, index)
        elif given is None:
            number = f"#{results:0{_ID_DIGITS}x}"
            if number in ids:
                message = (
                    f"this step carries no id, so the session numbers it {number}, "
                    f"which step {ids[number]} is given: give every result step its id, or none"
                )
                yield doc.problem(f"{at}/steps/{index}", message, "duplicate-id")
            numbered.setdefault(number, index)
