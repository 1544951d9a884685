"""What is wrong in one spec file on its own: its schema's problems and its texts', each placed.

A problem is `file:line:column: pointer: message`. A valid file costs a compiled validator's quick
yes (jsonschema-rs). A file with a problem costs little more: the compiled validator says which
cases hold one, `jsonschema` checks again only those (its words are the ones a person reads),
and only the values named by a problem are found in the text to place it. The reader
(`reader.read_spec_json`) and `ctxconf validate` both ask this module; the checks across files
(a case file's version against its folder's loop.json, ids, steps) are validate's own.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from ctxconf.specdata.schema_messages import allowed_keys, named_keys, schema_message
from ctxconf.specdata.schemas import compiled_spec_validator, registry, spec_schema, spec_validator
from ctxconf.userfiles.document import SpecJson, display
from ctxconf.userfiles.jsonpos import Position, escape, pointer

if TYPE_CHECKING:  # imported by schemas.py only when a file has a problem to word
    from jsonschema import Draft202012Validator


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a file, and where: `file:line:column: pointer: message`."""

    file: str
    pointer: str
    line: int
    column: int
    message: str
    code: str

    def __str__(self) -> str:
        place = f"{self.pointer}: " if self.pointer else ""
        return f"{self.file}:{self.line}:{self.column}: {place}{self.message}"


@dataclass(frozen=True)
class Document:
    file: str
    source: SpecJson  # its positions are scanned only when a problem is placed

    @property
    def data(self) -> Any:
        return self.source.data

    def problem(self, at: str, message: str, code: str) -> Problem:
        # A pointer the document lacks (a missing value) is placed at its nearest parent.
        where = self.source.where
        known = at
        while known not in where and known:
            known = known.rsplit("/", 1)[0]
        position = where.get(known, Position(1, 1, 0))
        return Problem(self.file, at, position.line, position.column, message, code)


def _schema(kind: str) -> dict[str, Any]:
    return spec_schema(kind)


@functools.cache
def _validator(kind: str) -> Draft202012Validator:
    return spec_validator(kind)


@functools.cache
def _compiled(kind: str) -> jsonschema_rs.Validator:
    return compiled_spec_validator(kind)


def _compiled_form(data: object) -> object:
    """`data` as the compiled validator takes it: an exact number (a fraction, an exponent) as
    the double it is closest to, which no schema of the spec tells apart."""
    if isinstance(data, Decimal):
        return float(data)
    if isinstance(data, dict):
        return {key: _compiled_form(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_compiled_form(value) for value in data]
    return data


def _compiled_errors(kind: str, data: object) -> list[Any] | None:
    """The compiled validator's errors ([] for a valid file); None for data it cannot take (a
    lone surrogate), which the full check then reads whole."""
    validator = _compiled(kind)

    def errors(checked: object) -> list[Any]:
        return [] if validator.is_valid(checked) else list(validator.iter_errors(checked))

    try:
        return errors(data)
    except (ValueError, TypeError, OverflowError):  # an exact number, a lone surrogate
        pass
    try:
        return errors(_compiled_form(data))
    except (ValueError, TypeError, OverflowError):  # a lone surrogate, a number past a double
        return None


def _failing_cases(data: object, errors: list[Any]) -> list[int] | None:
    """The indexes of the cases the compiled validator found a problem in, when those are all
    the full check needs to read (each case is held to the schema on its own); None when it
    must read the whole file."""
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        return None
    failing: set[int] = set()
    for error in errors:
        path = list(error.instance_path)
        if path[:1] == ["cases"]:
            if len(path) < 2 or not isinstance(path[1], int):
                return None  # about the list of cases as a whole
            failing.add(path[1])
    return sorted(failing)


def file_problems(doc: Document, kind: str | None) -> list[Problem]:
    """The problems a file has on its own: its schema, its texts, its cap."""
    if kind is None:
        message = "cannot tell what this file is: a case file has 'cases', loop.json has 'context'"
        return [doc.problem("", message, "kind")]
    errors = _compiled_errors(kind, doc.data)
    problems = [] if errors == [] else list(_schema_problems(doc, _validator(kind), errors))
    if _ESCAPED_SURROGATE.search(doc.source.text):  # a lone one can only be spelled as an escape
        problems.extend(_text_problems(doc, doc.data, ""))
    return problems


def ordered(problems: Iterable[Problem]) -> list[Problem]:
    return sorted(set(problems), key=lambda p: (p.line, p.column, p.pointer, p.message))


def document_problems(document: SpecJson, kind: str | None) -> list[Problem]:
    """The problems of one parsed spec file on its own (the spec reader's check), in order."""
    doc = Document(display(document.path), document)
    return ordered(file_problems(doc, kind))


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def _text_problems(doc: Document, value: object, at: str) -> Iterator[Problem]:
    """Strings that are not text: JSON can spell a lone surrogate (`"\\ud800"`), which no file
    content holds and which cannot be hashed as UTF-8."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            message = (
                f"not text: a lone surrogate U+{ord(value[error.start]):04X} at character "
                f"{error.start}"
            )
            yield doc.problem(at, message, "not-text")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _text_problems(doc, item, f"{at}/{escape(str(key))}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _text_problems(doc, item, f"{at}/{index}")


# --- schema errors -------------------------------------------------------------------------------


def _fewer_cases(data: object, compiled: list[Any] | None) -> tuple[Any, list[int]] | None:
    """A copy of the file holding only the cases the compiled validator found a problem in (one
    case when the problems are all outside them), and their indexes; None when the full check
    must read the whole file, or would read no less."""
    if compiled is None or not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        return None
    failing = _failing_cases(data, compiled)
    cases = data["cases"]
    if failing is None or not cases or len(failing) == len(cases):
        return None
    kept = failing or [0]  # an empty list of cases would be a problem of its own
    return {**data, "cases": [cases[index] for index in kept]}, kept


def _full_errors(
    data: object, validator: Draft202012Validator, compiled: list[Any] | None
) -> Iterator[tuple[Any, list[str | int]]]:
    """`jsonschema`'s errors, each with its path in `data`: of the cases the compiled validator
    found a problem in, or of the whole file."""
    fewer = _fewer_cases(data, compiled)
    if fewer is not None:
        copy, kept = fewer
        errors = list(validator.iter_errors(copy))
        for error in errors:
            path = list(error.absolute_path)
            if path[:1] == ["cases"] and len(path) > 1 and isinstance(path[1], int):
                path[1] = kept[path[1]]
            yield error, path
        if errors:
            return
        # The two validators disagree on where the problem is: the whole file decides.
    for error in validator.iter_errors(data):
        yield error, list(error.absolute_path)


def _schema_problems(
    doc: Document, validator: Draft202012Validator, compiled: list[Any] | None
) -> Iterator[Problem]:
    for error, path in _full_errors(doc.data, validator, compiled):
        at = pointer(path)
        keyword = str(error.validator)
        schema = error.schema if isinstance(error.schema, Mapping) else {}
        if keyword == "additionalProperties" and isinstance(error.instance, dict):
            # One problem per unknown key, placed at the key's own value.
            allowed = list(schema.get("properties", {}))
            for key in error.instance:
                if key not in allowed:
                    message = f"unknown key {key!r}{allowed_keys(allowed)}"
                    yield doc.problem(f"{at}/{escape(key)}", message, "schema.unknown-key")
            continue
        if keyword == "unevaluatedProperties" and isinstance(error.instance, dict):
            # A shape shared with the protocol, closed by the case file: the same words.
            named = named_keys(error, validator, registry())
            for key in error.instance:
                if named is not None and key not in named:
                    message = f"unknown key {key!r}{allowed_keys(named)}"
                    yield doc.problem(f"{at}/{escape(key)}", message, "schema.unknown-key")
            continue
        yield doc.problem(at, schema_message(error, schema), f"schema.{keyword}")
