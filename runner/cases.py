"""The cases a run sends: read from case files, then chosen by area and by -k."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxconf.specdata.clashes import repeated_cases
from ctxconf.specdata.reader import CASES, list_case_files, read_spec_json
from ctxconf.userfiles.document import display, plural, printable

from .errors import CaseFileError
from .selection import Selector


@dataclass(frozen=True)
class Case:
    """One case as read from its file, with where it came from."""

    area: str
    file: str  # the case file's name, e.g. "context.json"
    name: str
    description: str
    rules: tuple[str, ...]
    steps: tuple[dict[str, Any], ...]
    expect: tuple[str, ...]
    data: dict[str, Any]  # the case object as written (limits, origin, …)


@dataclass(frozen=True)
class CaseFile:
    path: Path
    area: str
    version: str
    cases: tuple[Case, ...]


def default_case_files(spec_dir: Path) -> list[Path]:
    """The spec folder's `conformance/*.json` (dot-files and temporary files are not cases)."""
    return list_case_files(spec_dir)


def load_case_file(path: Path) -> CaseFile:
    """A case file valid by its schema (SpecFileError, with the place, where it is not), whose
    cases each have one expected text per step (CaseFileError where not)."""
    data = read_spec_json(path, CASES).data
    problems: list[str] = []
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise CaseFileError(f'{path}: not a case file (an object with "area" and "cases")')
    area = data.get("area")
    if not isinstance(area, str):
        problems.append('"area" must be a string')
        area = ""
    cases: list[Case] = []
    for index, raw in enumerate(data["cases"]):
        where = f"cases[{index}]"
        if not isinstance(raw, dict):
            problems.append(f"{where}: not an object")
            continue
        name = raw.get("name")
        steps = raw.get("steps")
        expect = raw.get("expect")
        if not isinstance(name, str) or not name:
            problems.append(f"{where}: no name")
            continue
        if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
            problems.append(f"{where} ({name}): steps must be an array of objects")
            continue
        if not isinstance(expect, list) or not all(isinstance(e, str) for e in expect):
            problems.append(f"{where} ({name}): expect must be an array of strings")
            continue
        if len(expect) != len(steps):
            problems.append(
                f"{where} ({name}): {plural(len(steps), 'step')} but "
                f"{plural(len(expect), 'expected text')}"
            )
            continue
        rules = raw.get("rules", [])
        cases.append(
            Case(
                area=area,
                file=printable(path.name),  # a name that is not UTF-8 is shown, not written raw
                name=name,
                description=str(raw.get("description", "")),
                rules=tuple(str(r) for r in rules) if isinstance(rules, list) else (),
                steps=tuple(steps),
                expect=tuple(expect),
                data=raw,
            )
        )
    if problems:
        raise CaseFileError(f"{path}: " + "; ".join(problems))
    return CaseFile(path, area, str(data.get("version", "")), tuple(cases))


def load_cases(paths: Iterable[Path]) -> list[CaseFile]:
    """The case files, each read once; CaseFileError when a case's area and name are those of a
    case in an earlier file (or the same file given twice): it would run, and count, twice."""
    files = [load_case_file(path) for path in paths]
    listed = ((f.path, f.area, [case.name for case in f.cases]) for f in files)
    repeat = next(repeated_cases(listed), None)
    if repeat is not None:
        raise CaseFileError(
            f"{display(repeat.path)}: /cases/{repeat.index}/name: the case {repeat.name!r} of "
            f"the area {_area_of(files, repeat.path)!r} is already in {display(repeat.first_path)} "
            f"(/cases/{repeat.first_index}): it would run twice",
            hint="give each case file once, and each case one name across the files of its area",
        )
    return files


def _area_of(files: Sequence[CaseFile], path: Path) -> str:
    return next(f.area for f in files if f.path == path)


def select_cases(
    files: Sequence[CaseFile], *, areas: Sequence[str] = (), selector: Selector | None = None
) -> list[Case]:
    """The cases of `files`, in file order, in the given areas and matching -k."""
    chosen: list[Case] = []
    for case_file in files:
        for case in case_file.cases:
            if areas and case.area not in areas:
                continue
            if selector is not None and not selector.matches([case.name, *case.rules]):
                continue
            chosen.append(case)
    return chosen
