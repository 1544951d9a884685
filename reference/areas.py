"""The registry of conformance areas: one record per area, each area a folder of its own.

Every area's cases run against the same `loop.json`; an area reads its own sections of it
(`config`). Everything else in ctxconf — validation, lint, the runner, the fuzzer, the pytest
plugin — loops over `REGISTRY` and names no area. Adding an area is a folder beside `context/` and
`prefix/` and its name in `FOLDERS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import Any

from .area import Area
from .readings import Reading, other_answers

# The folders of the areas, in the order they are listed and run.
FOLDERS = ("context", "prefix", "history")

REGISTRY: dict[str, Area] = {
    area.name: area for area in (import_module(f".{f}", __package__).AREA for f in FOLDERS)
}

AREAS: tuple[str, ...] = tuple(REGISTRY)
OPS_BY_AREA: Mapping[str, frozenset[str]] = {name: area.ops for name, area in REGISTRY.items()}
# Each decision's other reading, by the decision's anchor.
READINGS: Mapping[str, Reading] = {
    reading.decision: reading for area in REGISTRY.values() for reading in area.readings
}


class UnknownArea(ValueError):
    """A case file of an area the reference does not implement."""


def area_of(name: str) -> Area:
    area = REGISTRY.get(name)
    if area is None:
        raise UnknownArea(f"no area {name!r}; the reference implements {', '.join(AREAS)}")
    return area


def run_area_case(area: str, case: Mapping[str, Any], loop: Mapping[str, Any]) -> list[str]:
    """The text each step of `case`, a case of `area`, shows; `loop` is the parsed loop.json."""
    return area_of(area).run_case(case, loop)


def answers_read_otherwise(
    decision: str, area: str, case: Mapping[str, Any], loop: Mapping[str, Any]
) -> list[str] | None:
    """The text each step of `case` shows when `decision` is read the other way; None when the
    reference keeps no other reading of it, or cannot answer the case under that reading."""
    reading = READINGS.get(decision)
    if reading is None or area not in REGISTRY:
        return None
    return other_answers(reading, area, case, loop)
