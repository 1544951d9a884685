"""The other reading of each decision, as a copy of the reference with a few edits of its source.

A decision is a point the spec's source left open, where another reading is as reasonable (the
Decisions tables of spec/*.md). Each area keeps, per decision, a `Reading`: the edits of the
reference's source that make it take the other reading. `other_answers` runs a case through
that edited copy, so that the runner can tell an implementation that reads a decision the other
way (its answers are the other reading's) from one that fails the decision's cases for any other
reason.

The copy is imported under a name of its own, from the edited text held in memory; the
reference itself is never changed, and nothing is written. Only the area the reading belongs to
is imported, once per reading and process.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Reading:
    """A decision read the other way: edits of one source file of the reference."""

    decision: str  # the decision's anchor
    name: str  # the other reading, in a few words
    file: str  # the file edited, below the reference's folder ("context/session.py")
    edits: tuple[tuple[str, str], ...]  # (text, replacement); each text occurs once in the file


class ReadingError(Exception):
    """A reading whose edits no longer fit the reference's source."""


def edited_source(reading: Reading) -> str:
    """The text of `reading.file` with its edits made."""
    source = (HERE / reading.file).read_text(encoding="utf-8")
    for old, new in reading.edits:
        found = source.count(old)
        if found != 1:
            raise ReadingError(
                f"{reading.decision} ({reading.name}): {old!r} occurs {found} times "
                f"in {reading.file}"
            )
        source = source.replace(old, new)
    return source


class _EditedModule(importlib.abc.SourceLoader):
    """Loads one module of a copy from its edited text (compiled afresh: no bytecode cache)."""

    def __init__(self, path: Path, source: str) -> None:
        self._path = path
        self._source = source

    def get_filename(self, fullname: str) -> str:
        return str(self._path)

    def get_data(self, path: str) -> bytes:
        return self._source.encode("utf-8")


class _EditedModules(importlib.abc.MetaPathFinder):
    """Finds the edited module of each copy; its other modules come from the reference's own
    files, through the copy's `__path__`."""

    def __init__(self) -> None:
        self.edited: dict[str, tuple[Path, str]] = {}

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        found = self.edited.get(fullname)
        if found is None:
            return None
        file, source = found
        return importlib.util.spec_from_loader(
            fullname, _EditedModule(file, source), origin=str(file)
        )


_FINDER = _EditedModules()


def _package_name(reading: Reading) -> str:
    return "_ctxconf_reading_" + re.sub(r"\W", "_", f"{reading.decision}__{reading.name}")


@cache
def _copy(reading: Reading, area: str) -> types.ModuleType:
    """The area's package of the copy that takes `reading`: `<copy>.<area>`."""
    package = _package_name(reading)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    module_name = package + "." + reading.file.removesuffix(".py").replace("/", ".")
    _FINDER.edited[module_name] = (HERE / reading.file, edited_source(reading))
    # The copy's top package is left empty, so that only the reading's area is imported; its
    # modules reach each other by relative imports, which `__path__` resolves.
    top = types.ModuleType(package)
    top.__path__ = [str(HERE)]
    top.__spec__ = importlib.machinery.ModuleSpec(package, None, is_package=True)
    top.__spec__.submodule_search_locations = [str(HERE)]
    sys.modules[package] = top
    return importlib.import_module(f"{package}.{area}")


def other_answers(
    reading: Reading, area: str, case: Mapping[str, Any], loop: Mapping[str, Any]
) -> list[str] | None:
    """What the steps of `case`, a case of `area`, show when the decision is read the other way.

    A case is written for this version's reading: under the other one a step may become one the
    session cannot take (an assistant step after a retry that gave a draft). The answers then
    stop before it, at the longest run of first steps the copy answers; None when it answers
    none. Each step's text depends on the steps before it alone, so the first answers of a
    shorter case are those of the whole case.
    """
    steps = list(case.get("steps") or [])
    try:
        run_case = _copy(reading, area).AREA.run_case
    except Exception:  # a copy that cannot be made is no evidence, and never stops a run
        return None
    for count in range(len(steps), 0, -1):
        try:
            answers = run_case({**case, "steps": steps[:count]}, loop)
        except Exception:  # this step, or one before it, is one the other reading cannot take
            continue
        return [str(text) for text in answers]
    return None
