"""Reading case files and adding a case to one, every other byte of the file kept."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxconf.specdata.reader import editing, read_case_file
from ctxconf.userfiles import limits
from ctxconf.userfiles.document import SpecFileError
from ctxconf.userfiles.jsonpos import value_spans

__all__ = ["FoundCase", "SpecFileError", "case_names", "find_case", "read_cases", "read_json"]


def read_json(path: Path) -> tuple[str, Any]:
    """The text of a case file and its data, or SpecFileError saying where it is broken."""
    document = read_case_file(path, allow=editing)
    return document.text, document.data


def read_cases(path: Path) -> list[dict[str, Any]]:
    """The cases of a case file (SpecFileError when it is not one)."""
    data = read_case_file(path, allow=editing).data
    return [case for case in data["cases"] if isinstance(case, dict)]


@dataclass(frozen=True)
class FoundCase:
    file: Path
    index: int
    case: dict[str, Any]


def find_case(files: list[Path], name: str) -> FoundCase | None:
    # Every file is read first: a broken one is refused whichever file holds the case.
    loaded = [(path, read_cases(path)) for path in files]
    for path, cases in loaded:
        for index, case in enumerate(cases):
            if case.get("name") == name:
                return FoundCase(path, index, case)
    return None


def case_names(files: list[Path]) -> list[str]:
    return [case.get("name", "") for path in files for case in read_cases(path)]


def indent_at(text: str, offset: int) -> str:
    """The indentation of the line that `offset` stands on."""
    line = text[text.rfind("\n", 0, offset) + 1 : offset]
    return line[: len(line) - len(line.lstrip())]


def with_case(text: str, case: dict[str, Any]) -> str:
    """The case file `text` with `case` added at the end of its `cases`, indented as the case
    before it; every other byte is kept."""
    spans = value_spans(text)
    start, end = spans["/cases"]
    count = len(json.loads(text)["cases"])
    if count:
        indent = indent_at(text, spans[f"/cases/{count - 1}"][0])
        body = limits.dumps(case, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)
        last_end = spans[f"/cases/{count - 1}"][1]
        text = text[:last_end] + ",\n" + indent + body + text[last_end:]
    else:
        body = limits.dumps([case], indent=2, ensure_ascii=False)
        text = text[:start] + body + text[end:]
    json.loads(text)
    return text
