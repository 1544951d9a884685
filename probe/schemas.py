"""The probe's JSON Schemas (`probe/data/schemas/`), and validation that places every problem.

A file is refused with all its problems at once, each where it stands: a key the schema does
not know at the key itself, with the known key it is nearest to (`did you mean 'resume'?`).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, NoReturn, Protocol

from jsonschema import Draft202012Validator, ValidationError

from ctxconf.userfiles.jsonpos import Position, escape, pointer

from .errors import ProbeDataError

MAX_LISTED = 10  # problems shown one by one; past them, a count


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a file: the JSON pointer of its value, what is wrong, and whether it
    is the key itself (one the schema does not know) rather than the value."""

    pointer: str
    message: str
    key: bool = False


class Places(Protocol):
    """Where a value, or its key, stands in the file a person wrote (`useryaml.UserYaml`)."""

    def place(self, at: str, key: bool = False) -> str: ...

    def position(self, at: str, key: bool = False) -> Position | None: ...


@cache
def _validator(name: str) -> Draft202012Validator:
    file = resources.files("ctxconf.probe") / "data" / "schemas" / f"{name}.schema.json"
    text = file.read_text(encoding="utf-8")
    return Draft202012Validator(json.loads(text))


def _near(word: str, known: Sequence[str]) -> str | None:
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def _unknown_key(at: str, key: str, known: Sequence[str]) -> Problem:
    near = _near(key, known)
    if near is not None:
        said = f"; did you mean {near!r}?"
    else:
        said = f" (known: {', '.join(known)})" if 0 < len(known) <= MAX_LISTED else ""
    return Problem(f"{at}/{escape(key)}", f"unknown key {key!r}{said}", key=True)


def _unknown(error: ValidationError) -> tuple[list[str], list[str]]:
    """Of an `additionalProperties: false` error: the keys its object holds that the schema does
    not know, and those it knows; two empty lists for any other error."""
    if error.validator != "additionalProperties" or error.validator_value is not False:
        return [], []
    if not isinstance(error.instance, dict) or not isinstance(error.schema, dict):
        return [], []
    known = [str(key) for key in error.schema.get("properties", {})]
    return [str(key) for key in error.instance if key not in known], known


def _problems_of(error: ValidationError) -> Iterator[Problem]:
    at = pointer(error.absolute_path)
    unknown, known = _unknown(error)
    if unknown:
        for key in unknown:
            yield _unknown_key(at, key, known)
        return
    if "propertyNames" in error.schema_path and isinstance(error.instance, str):
        # A key held to a list or a pattern: the error is the key's, shown at it.
        name = error.instance
        if error.validator == "enum" and isinstance(error.validator_value, list):
            yield _unknown_key(at, name, [str(v) for v in error.validator_value])
        else:
            yield Problem(f"{at}/{escape(name)}", f"the key {error.message}", key=True)
        return
    yield Problem(at or "/", error.message)


def _mistyped(error: ValidationError, errors: Sequence[ValidationError]) -> bool:
    """Whether `error` is a required key that is missing only because it was mistyped: every
    key it misses is the near one of a key its object does not know (`resmue` for `resume`),
    which is the one mistake to name."""
    if error.validator != "required" or not isinstance(error.instance, dict):
        return False
    wanted = error.validator_value if isinstance(error.validator_value, list) else []
    missing = [key for key in wanted if key not in error.instance]
    near = set()
    for other in errors:
        if other.absolute_path == error.absolute_path:
            unknown, known = _unknown(other)
            near |= {_near(key, known) for key in unknown}
    return bool(missing) and all(key in near for key in missing)


def schema_problems(data: Any, schema: str) -> list[Problem]:
    """Every problem the schema named `schema` finds in `data`, one per mistake."""
    errors = list(_validator(schema).iter_errors(data))
    return [
        problem
        for error in errors
        if not _mistyped(error, errors)
        for problem in _problems_of(error)
    ]


def refuse(problems: Sequence[Problem], source: str, places: Places | None = None) -> NoReturn:
    """Raise ProbeDataError listing `problems` in the order of the file, each at its
    `file:line:column` when `places` knows the file, else at `source`; a count past the first
    MAX_LISTED."""

    def order(problem: Problem) -> tuple[int, str]:
        found = places.position(problem.pointer, problem.key) if places is not None else None
        return (found.offset if found is not None else -1, problem.pointer)

    def line(problem: Problem) -> str:
        where = places.place(problem.pointer, problem.key) if places is not None else source
        return f"{where}: at {problem.pointer}: {problem.message}"

    ordered = sorted(problems, key=order)
    if len(ordered) == 1:
        raise ProbeDataError(line(ordered[0]))
    shown = [f"  {line(p)}" for p in ordered[:MAX_LISTED]]
    if len(ordered) > MAX_LISTED:
        shown.append(f"  (and {len(ordered) - MAX_LISTED} more)")
    raise ProbeDataError("\n".join([f"{source}: {len(ordered)} problems", *shown]))


def validate_data(
    data: Any, schema: str, source: str, place: Callable[[str], str] | None = None
) -> None:
    """Raise ProbeDataError naming the first problem by JSON pointer, all problems counted (a
    file a program wrote: a results file, a matrix, a scenario); `place` gives where a
    pointer's value stands in the file (`file:line:column`). A profile, which a person writes
    and fixes, is refused with every problem (`refuse`)."""
    errors = sorted(_validator(schema).iter_errors(data), key=lambda e: list(e.absolute_path))
    if not errors:
        return
    first = errors[0]
    at = pointer(first.absolute_path) or "/"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    where = place(at) if place is not None else source
    raise ProbeDataError(f"{where}: at {at}: {first.message}{more}")


__all__ = ["MAX_LISTED", "Places", "Problem", "refuse", "schema_problems", "validate_data"]
