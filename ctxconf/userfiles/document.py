"""A file handed over, read within the limits: its bytes, its text, its JSON with positions.

`read_json_document(path)` refuses, with the file and the place, everything a command could
otherwise trip over: a path that is not a regular file (a folder, a FIFO, a device; checked before
opening, so a FIFO never blocks), a file over `MAX_SPEC_FILE_BYTES`, bytes that are not UTF-8,
text that is not JSON, a key given twice, NaN/Infinity, numbers past the limits, and nesting past
`MAX_JSON_DEPTH`. What the data must be is the reader's (`ctxconf.specdata.reader`) or the
caller's; YAML a person wrote is `useryaml`'s.

Every refusal is one `SpecFileError`: `file:line:column: /pointer: message`.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import re
import stat
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxconf.errors import CtxconfError
from ctxconf.terminal.controls import visible_controls
from ctxconf.userfiles import limits
from ctxconf.userfiles.jsonpos import Locator, Position, scan

# A string (one cut short runs to the end, so a scan never looks at a quote twice), or a bracket.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*+(?:"|\\?\Z)|[\[\]{}]', re.DOTALL)


class SpecFileError(CtxconfError):
    """A file that cannot be used; `file`, `place` (line:column or "") and `pointer` say where."""

    code = "spec-file"
    default_hint = "ctxconf validate lists every problem of a spec folder"

    def __init__(
        self,
        file: str | Path,
        reason: str,
        *,
        place: Position | tuple[int, int] | None = None,
        pointer: str = "",
        usable: bool = True,
        problem_code: str = "json",
    ) -> None:
        line, column = (
            (place.line, place.column) if isinstance(place, Position) else place or (0, 0)
        )
        where = f"{file}:{line}:{column}" if line else str(file)
        at = f"{pointer}: " if pointer else ""
        super().__init__(f"{where}: {at}{reason}")
        self.file, self.reason, self.pointer = str(file), reason, pointer
        self.line, self.column = line, column
        # False: the path itself cannot be read (missing, a folder, a FIFO), not its content.
        self.usable = usable
        self.problem_code = problem_code  # validate's code for the problem: json, encoding, …


@dataclass(frozen=True)
class SpecJson:
    path: Path
    text: str
    data: Any
    scanned: dict[str, Position] | None = None  # the positions, when a scan already found them

    @functools.cached_property
    def where(self) -> Mapping[str, Position]:
        """JSON pointer -> where its value starts; found when asked for, each pointer by the
        path down to it (a valid file read for its data never needs it, and placing a problem
        in a large file costs one pass over it)."""
        return self.scanned if self.scanned is not None else Locator(self.text)


def display(path: Path) -> str:
    """The path as the user gave it, or relative to the working folder when that is shorter;
    shown so it can be printed: a byte of a name that is not UTF-8 as `\\xff`, a control
    character as `⟨U+001B⟩`."""
    text = str(path)
    if path.is_absolute():
        try:
            relative = os.path.relpath(path)
        except ValueError:  # another drive, on Windows
            relative = text
        text = text if relative.startswith("..") else relative
    return printable(text)


def printable(text: str) -> str:
    """A file name or path as text that can be printed and written as UTF-8: a byte that is not
    UTF-8 as `\\xff`, a control character as `⟨U+001B⟩`."""
    if text.isprintable():
        return text
    # A name's undecodable bytes are held as surrogates (PEP 383): shown as the bytes they were.
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file name holds, given some other way
        raw = text.encode("utf-8", "backslashreplace")
    return visible_controls(raw.decode("utf-8", "backslashreplace"))


# The bytes read so far inside `read_once`, by absolute path; None outside it.
_READ: ContextVar[dict[Path, bytes] | None] = ContextVar("spec_files_read", default=None)

FILE_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def read_bytes(path: Path, what: str = "file") -> bytes:
    """The bytes of a regular file of at most MAX_SPEC_FILE_BYTES, or SpecFileError.

    The kind of file is checked before it is opened, and it is opened non-blocking, so a FIFO,
    a device or a link to /dev/zero is refused rather than read or waited on."""
    cache = _READ.get()
    key = Path(os.path.abspath(path))
    if cache is not None and key in cache:
        return cache[key]
    raw = _read_bytes(path, what)
    if cache is not None:
        cache[key] = raw
    return raw


class ReadOnce:
    """Within it, each spec file is read from disk once: a command that goes over a spec folder
    in several passes (`ctxconf check`) reads each file once and parses the same bytes.

    A class, not a generator: contextlib's would set `__traceback__` on an exception passing
    through, which a frozen exception class refuses."""

    def __enter__(self) -> None:
        self._token = _READ.set({})

    def __exit__(self, *exc: object) -> None:
        _READ.reset(self._token)


def read_once() -> ReadOnce:
    """`with read_once():` each spec file is read from disk once (see ReadOnce)."""
    return ReadOnce()


def _read_bytes(path: Path, what: str) -> bytes:
    name = display(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        dangling = os.path.islink(path)
        reason = "a symbolic link to a missing file" if dangling else f"no such {what}"
        raise SpecFileError(name, reason, usable=False) from None
    except OSError as error:
        raise SpecFileError(
            name, f"cannot be read: {error.strerror or error}", usable=False
        ) from None
    if not stat.S_ISREG(info.st_mode):
        kind = FILE_KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
        raise SpecFileError(name, f"is {kind}, not a regular {what}", usable=False)
    if info.st_size > limits.MAX_SPEC_FILE_BYTES:
        raise SpecFileError(name, _too_large(info.st_size), usable=False)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise SpecFileError(
            name, f"cannot be read: {error.strerror or error}", usable=False
        ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between the two looks
            raise SpecFileError(name, f"is not a regular {what}", usable=False)
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            size += len(chunk)
            if size > limits.MAX_SPEC_FILE_BYTES:
                raise SpecFileError(name, _too_large(size), usable=False)
    except OSError as error:
        reason = "is a folder" if error.errno == errno.EISDIR else error.strerror or str(error)
        raise SpecFileError(name, f"cannot be read: {reason}", usable=False) from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_text_file(path: Path, what: str = "file") -> str:
    """A regular UTF-8 text file of at most MAX_SPEC_FILE_BYTES (a spec's markdown), or
    SpecFileError naming the file and the bad byte's line:column."""
    return decode(read_bytes(path, what), display(path))


def _too_large(size: int) -> str:
    return f"{size:,} bytes is more than the {limits.MAX_SPEC_FILE_BYTES:,} a spec file may have"


def decode(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise SpecFileError(
            name, f"not UTF-8 text: {error.reason}", place=(line, column), problem_code="encoding"
        ) from None


def _depth_check(text: str, name: str) -> None:
    """Nesting past MAX_JSON_DEPTH, placed at the bracket that goes one level too deep (a linear
    scan: the parsers below recurse, so they must not see such a text)."""
    level = 0
    for token in _TOKENS.finditer(text):
        char = token.group()
        if char in "[{":
            level += 1
            if level > limits.MAX_JSON_DEPTH:
                offset = token.start()
                line = text.count("\n", 0, offset) + 1
                column = offset - (text.rfind("\n", 0, offset) + 1) + 1
                reason = f"arrays and objects nest deeper than {limits.MAX_JSON_DEPTH} levels"
                raise SpecFileError(name, reason, place=(line, column))
        elif char in "]}":
            level -= 1


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        raise _DuplicateKey
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# The standard library's parser within the limits, refusing a key given twice: a quick yes for a
# well-formed file; anything it refuses is scanned again to find the place.
_STRICT = json.JSONDecoder(
    parse_int=limits.parse_int,
    parse_float=limits.parse_exact_float,
    parse_constant=_no_constant,
    object_pairs_hook=_unique_keys,
)


def parse_json_text(text: str, name: str) -> tuple[Any, dict[str, Position] | None]:
    """The data of a JSON text, and where each value starts when that was scanned for already
    (None: `SpecJson.where` scans on demand); SpecFileError with the place of the first thing
    wrong."""
    try:
        data = _STRICT.decode(text)
    except (ValueError, RecursionError):
        pass
    else:
        if limits.depth(data) <= limits.MAX_JSON_DEPTH:
            return data, None
    _depth_check(text, name)
    try:
        found = scan(text)
    except json.JSONDecodeError as error:
        raise SpecFileError(
            name, f"invalid JSON: {error.msg}", place=(error.lineno, error.colno)
        ) from None
    if found.duplicates:
        at, where = found.duplicates[0]
        raise SpecFileError(
            name,
            "this key is given twice in one object (the first would be lost)",
            place=where,
            pointer=at,
            problem_code="duplicate-key",
        )
    try:
        data = limits.parse_json(text, exact=True)
    except ValueError as error:  # the scan saw it first; kept so no exception escapes
        raise SpecFileError(name, f"invalid JSON: {error}", place=(1, 1)) from None
    return data, found.positions


def read_json_document(path: Path) -> SpecJson:
    """A JSON file's text, data and positions, without looking at what kind of file it is."""
    name = display(path)
    text = decode(read_bytes(path), name)
    data, where = parse_json_text(text, name)
    return SpecJson(path, text, data, where)


def plural(count: int, noun: str) -> str:
    """`1 case`, `2 cases`: every count a spec command prints."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
