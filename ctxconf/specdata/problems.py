"""What is wrong in one spec file on its own: its schema's problems and its texts', each placed.

A problem is `file:line:column: pointer: message`. A valid file costs a compiled validator's quick
yes (jsonschema-rs); only a file with a problem is checked again by `jsonschema` and its
positions scanned to place each problem. The reader (`reader.read_spec_json`) and `ctxconf
validate` both ask this module; the checks across files (a case file's version against its
folder's loop.json, ids, steps) are validate's own.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator

from ctxconf.specdata.schema_messages import allowed_keys, named_keys, schema_message
from ctxconf.specdata.schemas import compiled_spec_validator, registry, spec_schema, spec_validator
from ctxconf.userfiles.document import SpecJson, display
from ctxconf.userfiles.jsonpos import Position, escape, pointer


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


def _surely_valid(kind: str, data: object) -> bool:
    """A compiled validator's quick yes: a valid file (every file a run reads) is checked in a
    few milliseconds, not seconds; a no, or data it cannot take, goes on to the full check, which
    finds every problem with its place."""
    try:
        return bool(_compiled(kind).is_valid(data))
    except (ValueError, TypeError, OverflowError):  # a lone surrogate, a number past its range
        return False


def file_problems(doc: Document, kind: str | None) -> list[Problem]:
    """The problems a file has on its own: its schema, its texts, its cap."""
    if kind is None:
        message = "cannot tell what this file is: a case file has 'cases', loop.json has 'context'"
        return [doc.problem("", message, "kind")]
    problems = (
        [] if _surely_valid(kind, doc.data) else list(_schema_problems(doc, _validator(kind)))
    )
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


def _schema_problems(doc: Document, validator: Draft202012Validator) -> Iterator[Problem]:
    for error in validator.iter_errors(doc.data):
        at = pointer(error.absolute_path)
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

