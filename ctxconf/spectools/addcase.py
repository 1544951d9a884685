"""Adding a case from a short YAML file: the steps as written, the expected texts from the reference
of the case file's area.

Every problem is placed where the user wrote it: `file.yaml:line:column` of the case, step or
field in the YAML, not of the JSON it would become.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxconf.reference import AREAS, OPS_BY_AREA, run_area_case
from ctxconf.specdata.problems import Problem
from ctxconf.specdata.reader import editing, is_case_file_name, read_case_file
from ctxconf.spectext.rules import load_rules, unreadable_texts
from ctxconf.spectools.casefile import with_case
from ctxconf.spectools.validate import validate_text
from ctxconf.userfiles.atomic import write_text_atomic
from ctxconf.userfiles.document import SpecFileError, display
from ctxconf.userfiles.useryaml import UserYaml, load_user_yaml

_CASE_KEYS = ("name", "description", "rules", "limits", "steps")
_NEAR = 3  # near matches named for a mistyped op or anchor


@dataclass(frozen=True)
class AddCaseError(Exception):
    """The YAML file or the case it describes cannot be added; `problems` say where."""

    problems: tuple[str, ...]

    def __str__(self) -> str:
        return "\n".join(self.problems)


@dataclass(frozen=True)
class YamlCase:
    case: dict[str, Any]
    at: str  # the case's JSON pointer in the YAML document ("" for a lone case)


def _is_case_file(data: object) -> bool:
    """A mapping shaped like a case file (`cases:`, maybe `area:`), not like one case."""
    return isinstance(data, dict) and "cases" in data and "steps" not in data


def yaml_area(source: UserYaml) -> str | None:
    """The area a YAML file shaped like a case file names (`area: prefix`), if it names one."""
    data = source.data
    area = data.get("area") if _is_case_file(data) else None
    return area if isinstance(area, str) else None


def load_yaml_cases(source: UserYaml) -> list[YamlCase]:
    """The cases of a YAML file: one case, a list of them, or a case file's `cases:` list (a case
    file's other keys, `area`, `version`, `description`, are the target file's to hold)."""
    data = source.data
    prefix = ""
    if _is_case_file(data):
        data, prefix = data["cases"], "/cases"
        if not isinstance(data, list):
            raise AddCaseError((f"{source.place(prefix)}: `cases` is a list of cases",))
    listed = isinstance(data, list)
    items = data if listed else [data]
    cases: list[YamlCase] = []
    for index, item in enumerate(items):
        at = f"{prefix}/{index}" if listed else ""
        if not isinstance(item, dict):
            raise AddCaseError((f"{source.place(at)}: a case is a mapping (name, steps, …)",))
        # Key order as a person reads a case file, whatever order the YAML used.
        ordered = {key: item[key] for key in (*_CASE_KEYS, *item) if key in item}
        cases.append(YamlCase(ordered, at))
    return cases


def _near(word: str, known: Iterable[str]) -> str:
    names = sorted(known)
    close = difflib.get_close_matches(word, names, n=_NEAR, cutoff=0.5)
    return "did you mean " + ", ".join(close) if close else "known: " + ", ".join(names[:10])


def _close(word: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, sorted(known), n=_NEAR, cutoff=0.5)
    return "did you mean " + ", ".join(close) + "; " if close else ""


def _rule_anchors(spec: Path | None) -> set[str] | None:
    """The rule anchors a case may name; SpecFileError when a spec text cannot be read, as the
    anchors named could not all be checked."""
    if spec is None:
        return None
    unreadable = unreadable_texts(spec)
    if unreadable:
        raise unreadable[0]
    try:
        return set(load_rules(spec, strict=False))
    except SpecFileError:
        return None  # the spec text is lint's to report; the anchors cannot be checked


def _case_problems(
    source: UserYaml,
    item: YamlCase,
    area: str,
    anchors: set[str] | None,
    taken: dict[str, str],
) -> list[str]:
    """What is wrong in one YAML case before the reference runs it."""
    case, at = item.case, item.at
    problems: list[str] = []
    name = case.get("name")
    if not isinstance(name, str) or not name:
        problems.append(f"{source.place(at + '/name')}: a case needs a name, a string")
    elif name in taken:
        problems.append(
            f"{source.place(at + '/name')}: {taken[name]} already has a case named {name!r}"
        )
    rules = case.get("rules", [])
    if anchors is not None and isinstance(rules, list):
        for index, rule in enumerate(rules):
            if isinstance(rule, str) and rule not in anchors:
                problems.append(
                    f"{source.place(f'{at}/rules/{index}')}: unknown rule anchor {rule!r} "
                    f"({_near(rule, anchors)})"
                )
    steps = case.get("steps")
    if not isinstance(steps, list) or not steps:
        problems.append(f"{source.place(at + '/steps')}: a case needs steps, a list")
        return problems
    ops = OPS_BY_AREA[area]
    for index, step in enumerate(steps):
        where = f"{at}/steps/{index}"
        op = step.get("op") if isinstance(step, dict) else None
        if not isinstance(step, dict):
            problems.append(f"{source.place(where)}: a step is a mapping with an op")
        elif op not in ops:
            problems.append(
                f"{source.place(where + '/op')}: unknown op {op!r} in the {area} area "
                f"({_close(str(op), ops)}the {area} ops: {', '.join(sorted(ops))})"
            )
    return problems


def _names_beside(case_file: Path, area: str) -> dict[str, str]:
    """The case names of the other case files of the area beside `case_file` (a run of their
    folder runs them all, so a name is one case's across them), each with its file."""
    taken: dict[str, str] = {}
    try:
        names = sorted(entry.name for entry in os.scandir(case_file.parent))
    except OSError:
        return taken
    for name in names:
        path = case_file.parent / name
        if not is_case_file_name(name) or name == case_file.name:
            continue
        try:
            data = read_case_file(path, allow=editing).data
        except SpecFileError:
            continue  # its own problems are validate's to report
        if data.get("area", AREAS[0]) == area:
            for case in data["cases"]:
                taken.setdefault(case["name"], display(path))
    return taken


_CASE_POINTER = re.compile(r"^/cases/(\d+)(/.*)?$")


def _placed(problem: Problem, first_new: int, items: list[YamlCase], source: UserYaml) -> str:
    """A validation problem of the file to be written, placed in the YAML when it is in a new
    case (its JSON pointer inside the case is the same in the YAML)."""
    match = _CASE_POINTER.match(problem.pointer)
    if match is not None and int(match.group(1)) >= first_new:
        item = items[int(match.group(1)) - first_new]
        return f"{source.place(item.at + (match.group(2) or ''))}: {problem.message}"
    return str(problem)


def add_cases(
    yaml_path: Path, case_file: Path, loop: Mapping[str, Any], spec: Path | None = None
) -> list[str]:
    """Add the YAML file's cases to `case_file`, validated, written atomically; their names.

    `loop` is the spec's parsed loop.json; the cases run in the reference of the file's area.
    `spec` is the spec folder whose rule anchors the cases may name."""
    try:
        source = load_user_yaml(yaml_path)
    except SpecFileError as error:
        if not error.usable:
            raise
        raise AddCaseError((error.message,)) from None
    items = load_yaml_cases(source)
    target = read_case_file(case_file, allow=editing)
    text, data = target.text, target.data
    area = data.get("area", AREAS[0])
    if area not in OPS_BY_AREA:
        raise AddCaseError((f"{display(case_file)}: /area: no reference for the area {area!r}",))
    named = yaml_area(source)
    if named is not None and named != area:
        raise AddCaseError(
            (
                f"{source.place('/area')}: these cases are of the area {named!r}, "
                f"but {display(case_file)} holds the area {area!r}; leave out --to, or give "
                f"the {named} case file",
            )
        )
    taken = {
        **_names_beside(case_file, area),
        **{c["name"]: display(case_file) for c in data["cases"]},
    }
    anchors = _rule_anchors(spec)
    problems: list[str] = []
    for item in items:
        problems += _case_problems(source, item, area, anchors, taken)
        if isinstance(item.case.get("name"), str):
            taken.setdefault(item.case["name"], f"{display(yaml_path)} (an earlier case)")
    if problems:
        raise AddCaseError(tuple(problems))
    for item in items:
        try:
            item.case["expect"] = run_area_case(area, item.case, loop)
        except Exception as error:  # the reference's complaint, placed at the case
            # A step the schema refuses is why, most often: say that, placed, instead.
            blank = {**item.case, "expect": [""] * len(item.case["steps"])}
            found = validate_text(case_file, with_case(text, blank))
            if found:
                first_new = len(data["cases"]) + items.index(item)
                raise AddCaseError(
                    tuple(_placed(p, first_new, items[items.index(item) :], source) for p in found)
                ) from None
            raise AddCaseError(
                (
                    f"{source.place(item.at)}: the reference cannot run this case: "
                    f"{type(error).__name__}: {error}; check its steps against the case schema",
                )
            ) from None
        text = with_case(text, item.case)
    # Validated as the file it will become, in its own folder, so the spec's version applies.
    first_new = len(data["cases"])
    found = validate_text(case_file, text)
    if found:
        raise AddCaseError(tuple(_placed(problem, first_new, items, source) for problem in found))
    write_text_atomic(case_file, text)
    return [item.case["name"] for item in items]
