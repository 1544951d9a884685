"""The record of one conformance area: what ctxconf needs to handle its cases."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .readings import Reading

Config = Any  # each area's own config class, read from loop.json
Step = Mapping[str, Any]


@dataclass(frozen=True)
class Area:
    """How ctxconf handles the cases of one area."""

    name: str  # the case files' `area`
    anchor_prefix: str  # every rule anchor of the area starts with it
    ops: frozenset[str]  # the steps' `op`s
    config: Callable[[Mapping[str, Any]], Config]  # its config, from the parsed loop.json
    run: Callable[[Mapping[str, Any], Config], list[str]]  # a case's step texts
    texts: tuple[tuple[str, str], ...]  # the loop.json sections holding its text templates
    # Whether an answer other than the expected one is the same step (config, step, expected,
    # actual); None: only the expected text is right.
    equivalent: Callable[[Config, Step, str, str], bool] | None = None
    # The problems of a case's steps its schema cannot express: (pointer below the case,
    # message, code) for each.
    step_problems: Callable[[Sequence[object]], Iterator[tuple[str, str, str]]] | None = None
    # How lint holds the area's spec text (<name>.md) to its templates: "examples" (fenced
    # examples, rendered from the first texts section) or "template-lines" (each template's
    # fixed lines appear in it).
    examples: str = "template-lines"
    # Schemas of its own, in its folder, for an area whose shapes schemas/ does not hold: its
    # case file's shape and its loop.json section (see ctxconf/areaschemas.py).
    case_schema: Path | None = None
    loop_schema: Path | None = None
    # The module of its Hypothesis strategies, shrinking and rule guesses, imported only to fuzz.
    fuzz_module: str = ""
    # The form a step's given `id` takes, checked by lint: (a regular expression, what it says in
    # words); None when the area's schema alone holds its ids.
    id_form: tuple[str, str] | None = None
    # Each of its decisions read the other way (its readings.py): what the runner compares a
    # failing answer with before it says that a decision was read differently.
    readings: tuple[Reading, ...] = ()

    def run_case(self, case: Mapping[str, Any], loop: Mapping[str, Any]) -> list[str]:
        return self.run(case, self.config(loop))
