"""What the audit's tests share: requests made by hand (figures chosen so each expected value
can be worked out in the test itself), reading a file with its problems collected, and the
hostile files every reader must survive (each broken line one problem naming its file and line,
the other requests still read)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from ctxconf.audit.readers import base
from ctxconf.audit.readers.base import HEAD_BYTES, Reader
from ctxconf.audit.record import AuditRequest, Place, Problem, TokenClasses

START = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)


def request(
    line: int,
    seconds: float,
    *,
    uncached: int | None = 100,
    read: int | None = 0,
    w5m: int | None = 0,
    w1h: int | None = 0,
    output: int | None = 50,
    model: str = "claude-sonnet-4-5",
    provider: str | None = "anthropic",
    session: str = "s1",
    **more: Any,
) -> AuditRequest:
    return AuditRequest(
        source="test",
        session=session,
        place=Place(Path("/records/s1.jsonl"), line),
        tokens=TokenClasses(uncached, read, w5m, w1h, output),
        time=START + timedelta(seconds=seconds),
        model=model,
        provider=provider,
        **more,
    )


FIXTURES = Path(__file__).parent / "fixtures"


def read_all(reader: Reader, path: Path) -> tuple[list[AuditRequest], list[Problem]]:
    problems: list[Problem] = []
    return list(reader.read(path, problems.append)), problems


def hostile_lines(
    reader: Reader, tmp_path: Path, name: str, good: list[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[list[AuditRequest], list[Problem], Path]:
    """`good` lines (each one request) with, between them, a line not UTF-8 and a line past the
    limit (made small here), and a torn last line."""
    limit = max(len(line.encode()) for line in good) + 10
    monkeypatch.setattr(base, "MAX_LINE_BYTES", limit)
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        good[0].encode(),
        b'{"type": "user", "text": "caf\xe9"}',  # Latin-1, not UTF-8
        b'{"padding": "' + b"x" * (limit * 3) + b'"}',
        *(line.encode() for line in good[1:]),
    ]
    path.write_bytes(b"\n".join(lines) + b"\n" + good[0].encode()[: len(good[0]) // 2])
    requests, problems = read_all(reader, path)
    return requests, problems, path


def assert_hostile_problems(problems: list[Problem], path: Path, lines: list[int]) -> None:
    assert [(p.place.file, p.place.line) for p in problems] == [(path, n) for n in lines]
    messages = [p.message for p in problems]
    assert "not UTF-8" in messages[0]
    assert "past the limit" in messages[1]
    assert "torn" in messages[2]


def assert_empty_file_reads_nothing(reader: Reader, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    assert read_all(reader, path) == ([], [])


def head(path: Path) -> bytes:
    with path.open("rb") as file:
        return file.read(HEAD_BYTES)
