"""What a reader is, and the bounded ways every reader reads its files.

A reader is one module of this folder holding `READER`: its name, what the token figures of
its source mean, where the source keeps its files by default, how to tell its files from their
first bytes, and how to read one file into `AuditRequest`s. Nothing a file holds may stop the
scan: a line that is not JSON, is torn, is not UTF-8 or is past the limit is one `Problem` with
its file and line, and reading goes on after it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ctxconf.userfiles.limits import LimitError, parse_json

from ..record import AuditRequest, Place, Problem, Problems, TokenClasses

# A line past this is passed over with a problem (a tool result of a few MB is common; a
# 50 MB line is not a record). Memory per line is bounded by it.
MAX_LINE_BYTES = 32 * 1024 * 1024
# A whole-file JSON document (a HAR, a chat file, an export) read at once.
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
# How much of a file's start the scan shows each reader to find the file's source.
HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class Reader:
    name: str  # as --source takes it
    title: str  # as a person reads it: "Claude Code transcripts"
    # What "input" means in the source and how the four classes are made of it.
    semantics: str
    # The files or folders, below a home folder, where the source keeps its records.
    places: Callable[[Path], list[Path]]
    # Whether a file is this source's, from its path and its first bytes (HEAD_BYTES at most).
    claims: Callable[[Path, bytes], bool]
    read: Callable[[Path, Problems], Iterator[AuditRequest]]


def json_lines(path: Path, problems: Problems) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each line of a JSON-lines file that holds an object, with its line number.

    A blank line is skipped; anything else that is not an object is a problem at its line. A
    last line without its newline that does not parse is reported as torn (a writer stopped in
    the middle), not as bad JSON."""
    with path.open("rb") as file:
        number = 0
        while True:
            raw = file.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                _past_limit(path, number, len(raw) + _skip_rest_of_line(file), problems)
                continue
            if not raw.strip():
                continue
            value = _parse_line(raw, path, number, problems, torn=not raw.endswith(b"\n"))
            if value is not None:
                yield number, value


def json_objects(path: Path, problems: Problems) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each JSON object of a file of objects one after another, written either one a line or
    pretty-printed (an opening `{` alone on its line, the closing `}` alone at the line's start),
    with the line it starts on. Memory is bounded by MAX_LINE_BYTES for one object; an object
    past it, torn at the end or not UTF-8 is one problem at its first line."""
    with path.open("rb") as file:
        number = start = size = 0
        parts: list[bytes] | None = None  # the open pretty-printed object's lines; [] past limit
        rest_of_line = False  # the chunk read goes on a line past the limit
        while raw := file.readline(MAX_LINE_BYTES + 1):
            number += 0 if rest_of_line else 1
            rest_of_line = not raw.endswith(b"\n")
            bare = raw.rstrip(b"\r\n")
            if parts is None and bare == b"{":
                start, size, parts = number, 0, []
            if parts is None:
                if raw.strip():
                    yield from _one_line_object(file, raw, path, number, problems)
                rest_of_line = False  # it read the whole line
                continue
            size += len(raw)
            if size <= MAX_LINE_BYTES:
                parts.append(raw)
            else:
                parts.clear()  # past the limit: it stays empty, size only grows
            if bare != b"}":
                continue
            if not parts:
                _past_limit(path, start, size, problems, "an object")
            elif (
                value := _parse_line(b"".join(parts), path, start, problems, torn=False)
            ) is not None:
                yield start, value
            parts = None
        if parts is not None:
            problems(Problem(Place(path, start), "the last object is torn: passed over"))


def _one_line_object(
    file: Any, raw: bytes, path: Path, number: int, problems: Problems
) -> Iterator[tuple[int, dict[str, Any]]]:
    if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
        _past_limit(path, number, len(raw) + _skip_rest_of_line(file), problems)
        return
    value = _parse_line(raw, path, number, problems, torn=not raw.endswith(b"\n"))
    if value is not None:
        yield number, value


def _past_limit(
    path: Path, number: int, size: int, problems: Problems, what: str = "a line"
) -> None:
    problems(
        Problem(
            Place(path, number),
            f"{what} of {size:,} bytes, past the limit of {MAX_LINE_BYTES:,}: passed over",
        )
    )


def _skip_rest_of_line(file: Any) -> int:
    skipped = 0
    while True:
        chunk = file.readline(1024 * 1024)
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return skipped


def _parse_line(
    raw: bytes, path: Path, number: int, problems: Problems, *, torn: bool
) -> dict[str, Any] | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        problems(Problem(Place(path, number), f"not UTF-8 at byte {e.start + 1}: passed over"))
        return None
    try:
        value = parse_json(text)
    except (LimitError, json.JSONDecodeError) as e:
        reason = (
            "the last line is torn (the writer stopped in the middle of it)"
            if torn
            else f"not JSON ({e})"
        )
        problems(Problem(Place(path, number), f"{reason}: passed over"))
        return None
    if not isinstance(value, dict):
        problems(Problem(Place(path, number), "not a JSON object: passed over"))
        return None
    return value


def json_document(path: Path, problems: Problems) -> Any | None:
    """A whole file as one JSON value, or None with a problem."""
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            problems(Problem(Place(path), f"{size:,} bytes, past the limit of a JSON document"))
            return None
        raw = path.read_bytes()
    except OSError as e:
        problems(Problem(Place(path), f"could not be read: {e.strerror or e}"))
        return None
    try:
        return parse_json(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        problems(Problem(Place(path), f"not UTF-8 at byte {e.start + 1}"))
    except (LimitError, json.JSONDecodeError) as e:
        problems(Problem(Place(path), f"not JSON: {e}"))
    return None


def timestamp(value: Any) -> datetime | None:
    """An ISO 8601 text (a trailing Z allowed) or a Unix time in seconds or milliseconds, as an
    aware datetime in UTC; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and value:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    return None


def count(value: Any) -> int | None:
    """A token count as a source gives it: a non-negative whole number, else None (N/A)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if value < 0 or value != int(value):
        return None
    return int(value)


def dig(value: Any, *keys: str | int) -> Any:
    """`value[k1][k2]…`, or None where any step is missing or of another kind."""
    for key in keys:
        if isinstance(key, int):
            if not isinstance(value, list) or not -len(value) <= key < len(value):
                return None
        elif not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def text_head(head: bytes) -> str:
    """The first bytes as text, a multi-byte character cut at the end forgiven."""
    return head.decode("utf-8", errors="ignore")


def from_inclusive(
    total: int | None,
    read: int | None,
    written_5m: int | None,
    written_1h: int | None,
    output: int | None,
) -> tuple[TokenClasses, bool]:
    """The four classes of a source whose "input" counts every input token, the cached ones
    among them (OpenAI's and Gemini's meaning): the uncached are what is left of the total.

    A total smaller than its own cache counts cannot be that meaning: the figures are then
    read as exclusive (Anthropic's meaning), and the second value says so (False), for the
    reader to record. A missing total is N/A, never taken as 0."""
    cached = (read or 0) + (written_5m or 0) + (written_1h or 0)
    if total is None:
        return TokenClasses(None, read, written_5m, written_1h, output), True
    if total < cached:
        return TokenClasses(total, read, written_5m, written_1h, output), False
    return TokenClasses(total - cached, read, written_5m, written_1h, output), True


def first_count(values: dict[str, Any], *keys: str) -> int | None:
    """The first of `keys` whose value in `values` is a count (sources spell one figure
    several ways)."""
    for key in keys:
        found = count(values.get(key))
        if found is not None:
            return found
    return None


def first_text(values: dict[str, Any], *keys: str) -> str | None:
    """The first of `keys` whose value in `values` is a non-empty text."""
    for key in keys:
        value = values.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def json_records(path: Path, problems: Problems) -> Iterator[tuple[Place, dict[str, Any]]]:
    """Each object of a file that is either one JSON array (or `{"data": [...]}`, as export
    APIs wrap it) or JSON lines, with its place: a pointer or a line."""
    with path.open("rb") as file:
        start = file.read(64).lstrip()
    if not start.startswith((b"[", b"{")) or (start.startswith(b"{") and _is_lines(path)):
        for number, value in json_lines(path, problems):
            yield Place(path, number), value
        return
    document = json_document(path, problems)
    if document is None:
        return  # the problem is said
    items = document.get("data") if isinstance(document, dict) else document
    if not isinstance(items, list):
        problems(Problem(Place(path), "neither a JSON array nor JSON lines"))
        return
    prefix = "/data" if isinstance(document, dict) else ""
    for index, item in enumerate(items):
        if isinstance(item, dict):
            yield Place(path, pointer=f"{prefix}/{index}"), item
        else:
            problems(Problem(Place(path, pointer=f"{prefix}/{index}"), "not an object"))


def _is_lines(path: Path) -> bool:
    """Whether a file that starts with `{` holds one object per line (its first line parses
    on its own) rather than one wrapping document."""
    with path.open("rb") as file:
        first = file.readline(MAX_LINE_BYTES)
    if first.strip() == b"{":
        return False  # a document written with indentation
    try:
        return isinstance(parse_json(first.decode("utf-8")), dict)
    except (UnicodeDecodeError, LimitError, json.JSONDecodeError):
        return True  # a torn or broken first line is a JSON-lines problem, said at its line


def amount(value: Any) -> float | None:
    """A money figure as a source gives it (a number, or a number as text), else None."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    return float(value)
