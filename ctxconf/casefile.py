"""Reading case files and adding a case to one, every other byte of the file kept."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxconf.jsonpos import value_spans


@dataclass(frozen=True)
class FoundCase:
    file: Path
    index: int
    case: dict[str, Any]


def find_case(files: list[Path], name: str) -> FoundCase | None:
    for path in files:
        cases = json.loads(path.read_text(encoding="utf-8")).get("cases", [])
        for index, case in enumerate(cases):
            if case.get("name") == name:
                return FoundCase(path, index, case)
    return None


def case_names(files: list[Path]) -> list[str]:
    return [
        case.get("name", "")
        for path in files
        for case in json.loads(path.read_text(encoding="utf-8")).get("cases", [])
    ]


def with_case(text: str, case: dict[str, Any]) -> str:
    """The case file `text` with `case` added at the end of its `cases`, indented as the case
    before it; every other byte is kept."""
    spans = value_spans(text)
    start, end = spans["/cases"]
    count = len(json.loads(text)["cases"])
    if count:
        last_start = spans[f"/cases/{count - 1}"][0]
        line = text[text.rfind("\n", 0, last_start) + 1 : last_start]
        indent = line[: len(line) - len(line.lstrip())]
        body = json.dumps(case, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)
        last_end = spans[f"/cases/{count - 1}"][1]
        text = text[:last_end] + ",\n" + indent + body + text[last_end:]
    else:
        body = json.dumps([case], indent=2, ensure_ascii=False)
        text = text[:start] + body + text[end:]
    json.loads(text)
    return text
