"""Where each value of a JSON document starts, as line:column, keyed by JSON pointer (RFC 6901).

The standard `json` module gives no positions, and the one PyPI package that maps pointers to
positions (json-source-map) builds pointers from the raw key text, unescaped and unencoded, so
a key such as "a/b" or "caf\\u00e9" gets a wrong pointer. This scan is small: containers are
walked here, and every scalar (and every key) is decoded by `json.JSONDecoder.raw_decode`, so
escapes and numbers follow exactly the rules of `json.loads`.

Lines and columns count from 1, columns in characters, as `json.JSONDecodeError` counts them.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ctxconf.userfiles import limits

_WHITESPACE = " \t\n\r"


@dataclass(frozen=True)
class Position:
    line: int
    column: int
    offset: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


def escape(token: str | int) -> str:
    """One reference token of a JSON pointer: `~` as `~0`, `/` as `~1`."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(path: Iterable[str | int]) -> str:
    """The JSON pointer of a path of keys and indexes ("" for the whole document)."""
    return "".join("/" + escape(token) for token in path)


class _Constant:
    """What `parse_constant` makes of NaN and ±Infinity, so the scan can refuse them."""

    def __init__(self, name: str) -> None:
        self.name = name


class _Duplicate(Exception):
    """The first key given twice, when the scan stops there."""


class _Scanner:
    def __init__(self, text: str, *, stop_at_duplicate: bool = False) -> None:
        self.stop_at_duplicate = stop_at_duplicate
        self.text = text
        self.decoder = json.JSONDecoder(
            parse_constant=_Constant, parse_int=limits.parse_int, parse_float=limits.parse_float
        )
        self.line_starts = [0] + [found.end() for found in re.finditer("\n", text)]
        self.found: dict[str, Position] = {}
        self.ends: dict[str, int] = {}
        self.duplicates: list[tuple[str, Position]] = []

    def position(self, offset: int) -> Position:
        index = bisect.bisect_right(self.line_starts, offset) - 1
        return Position(index + 1, offset - self.line_starts[index] + 1, offset)

    def fail(self, message: str, offset: int) -> json.JSONDecodeError:
        return json.JSONDecodeError(message, self.text, offset)

    def skip(self, offset: int) -> int:
        while offset < len(self.text) and self.text[offset] in _WHITESPACE:
            offset += 1
        return offset

    def expect(self, offset: int, chars: str, message: str) -> int:
        """The offset just after one of `chars` (after whitespace), or a decode error."""
        offset = self.skip(offset)
        if offset >= len(self.text) or self.text[offset] not in chars:
            raise self.fail(message, offset)
        return offset

    def scalar(self, offset: int) -> tuple[object, int]:
        try:
            value, end = self.decoder.raw_decode(self.text, offset)
        except json.JSONDecodeError:
            raise self.fail("Expecting value", offset) from None
        except limits.LimitError as error:
            raise self.fail(str(error), offset) from None
        if isinstance(value, _Constant):
            raise self.fail(f"{value.name} is not a JSON value", offset)
        return value, end

    def value(self, offset: int, at: str) -> int:
        """Record the value starting at or after `offset` and its members; the offset after it."""
        offset = self.skip(offset)
        self.found[at] = self.position(offset)
        char = self.text[offset : offset + 1]
        if char == "{":
            end = self.members(offset + 1, at)
        elif char == "[":
            end = self.items(offset + 1, at)
        else:
            end = self.scalar(offset)[1]
        self.ends[at] = end
        return end

    def forget(self, at: str) -> None:
        """Drop a value given before under the same key: the last one counts, as in json.loads."""
        for known in [p for p in self.found if p == at or p.startswith(at + "/")]:
            del self.found[known]

    def members(self, offset: int, at: str) -> int:
        offset = self.skip(offset)
        if self.text[offset : offset + 1] == "}":
            return offset + 1
        while True:
            offset = self.expect(offset, '"', "Expecting property name enclosed in double quotes")
            key_start = offset
            key, offset = self.scalar(offset)
            assert isinstance(key, str)
            offset = self.expect(offset, ":", "Expecting ':' delimiter")
            member = at + "/" + escape(key)
            if member in self.found:
                self.duplicates.append((member, self.position(key_start)))
                if self.stop_at_duplicate:  # the reader refuses it: the rest is not needed
                    raise _Duplicate
                self.forget(member)
            offset = self.value(offset + 1, member)
            offset = self.expect(offset, ",}", "Expecting ',' delimiter")
            if self.text[offset] == "}":
                return offset + 1
            offset += 1

    def items(self, offset: int, at: str) -> int:
        offset = self.skip(offset)
        if self.text[offset : offset + 1] == "]":
            return offset + 1
        index = 0
        while True:
            offset = self.value(offset, f"{at}/{index}")
            offset = self.expect(offset, ",]", "Expecting ',' delimiter")
            if self.text[offset] == "]":
                return offset + 1
            offset, index = offset + 1, index + 1


def _scan(text: str, *, stop_at_duplicate: bool = False) -> _Scanner:
    scanner = _Scanner(text, stop_at_duplicate=stop_at_duplicate)
    try:
        end = scanner.skip(scanner.value(0, ""))
    except _Duplicate:
        return scanner
    if end != len(text):
        raise scanner.fail("Extra data", end)
    return scanner


@dataclass(frozen=True)
class Scan:
    """Where each value starts and ends, and the keys given twice in one object (each with
    where its second mention starts)."""

    positions: dict[str, Position]
    ends: dict[str, int]
    duplicates: list[tuple[str, Position]] = field(default_factory=list)


def scan(text: str) -> Scan:
    """The scan of a document: raises `json.JSONDecodeError` where `text` is not JSON within
    ctxconf's limits (NaN, Infinity, numbers too large or too long count as not JSON). It
    stops at the first key given twice, which `duplicates` then holds."""
    scanner = _scan(text, stop_at_duplicate=True)
    return Scan(scanner.found, scanner.ends, scanner.duplicates)


def value_spans(text: str) -> dict[str, tuple[int, int]]:
    """Every JSON pointer of the document in `text` -> the [start, end) offsets of its value,
    so that one value can be replaced and every other byte of the text kept."""
    scanner = _scan(text)
    return {at: (where.offset, scanner.ends[at]) for at, where in scanner.found.items()}


def positions(text: str) -> dict[str, Position]:
    """Every JSON pointer of the document in `text` -> where its value starts.

    Raises `json.JSONDecodeError` (with line and column) where `text` is not one JSON value,
    including the NaN and Infinity that `json.loads` lets through. Of a key given twice in one
    object, the last counts, as in `json.loads`.
    """
    return _scan(text).found
