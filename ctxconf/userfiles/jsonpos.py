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
import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]  # not in typeshed

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
    return dict(_spans(text))  # a copy: the caller may change it


# The texts scanned last: lint's checks each ask for the spans of the same case files, and
# regen and show again.
@functools.lru_cache(maxsize=16)
def _spans(text: str) -> dict[str, tuple[int, int]]:
    scanner = _scan(text)
    return {at: (where.offset, scanner.ends[at]) for at, where in scanner.found.items()}


def positions(text: str) -> dict[str, Position]:
    """Every JSON pointer of the document in `text` -> where its value starts.

    Raises `json.JSONDecodeError` (with line and column) where `text` is not one JSON value,
    including the NaN and Infinity that `json.loads` lets through. Of a key given twice in one
    object, the last counts, as in `json.loads`.
    """
    return _scan(text).found


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


class Locator(Mapping[str, Position]):
    """Where the values of a document start, found only for the pointers asked for: the path
    down to each is walked, every value beside it skipped whole by the C decoder, so placing a
    few problems in a large file costs one pass over it, not a record of each of its values.

    For a text that already parsed as JSON within the limits (the reader's quick yes); the full
    scan (`positions`) is for a text that did not. Iterating it scans every value."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._skipper = json.JSONDecoder()
        self._starts: dict[str, int | None] = {}
        self._items: dict[str, list[int]] = {}  # array pointer -> starts of its items so far
        self._marks: list[int] = [0]  # offsets whose line is known, ascending
        self._lines: list[int] = [1]

    def _skip(self, offset: int) -> int:
        text = self._text
        while offset < len(text) and text[offset] in _WHITESPACE:
            offset += 1
        return offset

    def _end(self, start: int) -> int:
        return int(self._skipper.raw_decode(self._text, start)[1])

    def _start(self, at: str) -> int | None:
        if at in self._starts:
            return self._starts[at]
        if at == "":
            found: int | None = self._skip(0)
        else:
            parent, token = at.rsplit("/", 1)
            start = self._start(parent)
            found = None if start is None else self._child(parent, start, _unescape(token))
        self._starts[at] = found
        return found

    def _child(self, parent: str, start: int, key: str) -> int | None:
        opening = self._text[start : start + 1]
        if opening == "{":
            return self._member(parent, start, key)
        if opening == "[" and key.isdigit() and (key == "0" or not key.startswith("0")):
            return self._item(parent, start, int(key))
        return None

    def _member(self, parent: str, start: int, key: str) -> int | None:
        text = self._text
        offset = self._skip(start + 1)
        while text[offset : offset + 1] == '"':
            name, offset = scanstring(text, offset + 1)
            value = self._skip(self._skip(offset) + 1)  # after the ':'
            self._starts.setdefault(f"{parent}/{escape(name)}", value)
            if name == key:
                return value
            offset = self._skip(self._end(value))
            if text[offset : offset + 1] != ",":
                return None
            offset = self._skip(offset + 1)
        return None

    def _item(self, parent: str, start: int, index: int) -> int | None:
        text = self._text
        items = self._items.setdefault(parent, [])
        if not items:
            first = self._skip(start + 1)
            if text[first : first + 1] in ("]", ""):
                return None
            items.append(first)
        while len(items) <= index:
            offset = self._skip(self._end(items[-1]))
            if text[offset : offset + 1] != ",":
                return None
            items.append(self._skip(offset + 1))
        return items[index]

    def _position(self, offset: int) -> Position:
        at = bisect.bisect_right(self._marks, offset) - 1
        mark, line = self._marks[at], self._lines[at]
        line += self._text.count("\n", mark, offset)
        if self._marks[at] != offset:
            self._marks.insert(at + 1, offset)
            self._lines.insert(at + 1, line)
        line_start = self._text.rfind("\n", 0, offset) + 1
        return Position(line, offset - line_start + 1, offset)

    def __getitem__(self, at: str) -> Position:
        start = self._start(at)
        if start is None:
            raise KeyError(at)
        return self._position(start)

    def __contains__(self, at: object) -> bool:
        return isinstance(at, str) and self._start(at) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(positions(self._text))

    def __len__(self) -> int:
        return len(positions(self._text))
