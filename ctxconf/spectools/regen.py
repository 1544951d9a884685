"""Regenerate the expected texts of case files from the reference (`ctxconf regen`).

Each file's cases run in the reference of the file's `area`, with the spec's `loop.json`. Only
the `expect` arrays change: every other byte of the file (keys, their order, formatting,
unknown fields) stays as it was, so a run that changes nothing leaves the file identical. The
cases of the spec's authors (`"origin": "authors"`) are rewritten only when asked
(`accept_authors`, `ctxconf regen --accept-authors`): otherwise, where the reference disagrees
with them, that is reported as a disagreement. The edits of a file are spliced in one pass.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxconf.reference import AREAS, run_area_case
from ctxconf.specdata.reader import editing, read_case_file
from ctxconf.spectools.casefile import indent_at
from ctxconf.userfiles.atomic import check_output, write_text_atomic
from ctxconf.userfiles.document import display
from ctxconf.userfiles.jsonpos import value_spans


@dataclass(frozen=True)
class StepChange:
    step: int
    old: str | None
    new: str


@dataclass(frozen=True)
class CaseChange:
    file: Path
    name: str
    authors: bool  # an authors' case: written only when its new texts are accepted
    steps: tuple[StepChange, ...]
    accepted: bool = True  # written (or, with --check, would be)


@dataclass
class RegenResult:
    changes: list[CaseChange] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    files_written: list[Path] = field(default_factory=list)

    @property
    def disagreements(self) -> list[CaseChange]:
        """The authors' cases the reference disagrees with, kept as they are."""
        return [c for c in self.changes if not c.accepted]


def _step_changes(old: Sequence[Any], new: Sequence[str]) -> tuple[StepChange, ...]:
    return tuple(
        StepChange(i, old[i] if i < len(old) else None, text)
        for i, text in enumerate(new)
        if i >= len(old) or old[i] != text
    ) + tuple(StepChange(i, old[i], "") for i in range(len(new), len(old)))


def _render_expect(texts: Sequence[str], indent: str) -> str:
    """A new `expect` array in the file's own indentation (what `json.dumps(indent=2)` writes)."""
    if not texts:
        return "[]"
    inner = indent + "  "
    items = ",\n".join(inner + json.dumps(t, ensure_ascii=False) for t in texts)
    return "[\n" + items + "\n" + indent + "]"


def splice(text: str, replacements: Iterable[tuple[int, int, str]]) -> str:
    """`text` with each [start, end) span replaced, in one pass: the spans do not overlap, and
    every byte outside them is kept."""
    pieces: list[str] = []
    done = 0
    for start, end, new in sorted(replacements):
        pieces += [text[done:start], new]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


@dataclass(frozen=True)
class _Read:
    path: Path
    text: str
    data: dict[str, Any]


def regenerate_file(
    read: _Read,
    loop: Mapping[str, Any],
    *,
    check: bool,
    accept_authors: bool,
    result: RegenResult,
) -> None:
    path, text, doc = read.path, read.text, read.data
    area = doc.get("area", AREAS[0])
    replacements: list[tuple[int, int, str]] = []
    spans = value_spans(text)
    for index, case in enumerate(doc["cases"]):
        name = case.get("name", f"#{index}")
        try:
            outputs = run_area_case(area, case, loop)
        except Exception as error:  # a case the reference cannot run is a data error to report
            result.errors.append(
                f"{display(path)}: /cases/{index} ({name}): {type(error).__name__}: {error}"
            )
            continue
        old = case.get("expect", [])
        if outputs == old:
            continue
        authors = case.get("origin") == "authors"
        kept = authors and not accept_authors
        result.changes.append(
            CaseChange(path, name, authors, _step_changes(old, outputs), accepted=not kept)
        )
        if kept:
            continue
        pointer = f"/cases/{index}/expect"
        if pointer in spans:
            start, end = spans[pointer]
            replacements.append((start, end, _render_expect(outputs, indent_at(text, start))))
        else:
            # No `expect` yet: add one after the case's `steps` array.
            start, end = spans[f"/cases/{index}/steps"]
            indent = indent_at(text, start)
            addition = ",\n" + indent + '"expect": ' + _render_expect(outputs, indent)
            replacements.append((end, end, addition))
    if check or not replacements:
        return
    text = splice(text, replacements)
    json.loads(text)  # never write a file that no longer parses
    write_text_atomic(path, text)
    result.files_written.append(path)


def regenerate(
    paths: Sequence[Path],
    loop: Mapping[str, Any],
    *,
    check: bool,
    accept_authors: bool = False,
) -> RegenResult:
    """Regenerate `paths` with `loop`, the parsed loop.json of the spec. Every file is read
    before any is written, and every one checked for writing, so a broken one stops the run
    with nothing changed (SpecFileError, OutputError)."""
    files = []
    for path in paths:
        document = read_case_file(path, allow=editing)
        files.append(_Read(path, document.text, document.data))
    if not check:  # a file that cannot be written is refused before any is
        for path in paths:
            check_output(path)
    result = RegenResult()
    for read in files:
        regenerate_file(read, loop, check=check, accept_authors=accept_authors, result=result)
    return result
