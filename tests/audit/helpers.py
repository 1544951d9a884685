"""What every reader's test does: read one file, keeping the requests and the problems."""

from __future__ import annotations

from pathlib import Path

from ctxconf.audit.readers.base import HEAD_BYTES, Reader
from ctxconf.audit.record import AuditRequest, Problem

FIXTURES = Path(__file__).parent / "fixtures"


def read_all(reader: Reader, path: Path) -> tuple[list[AuditRequest], list[Problem]]:
    problems: list[Problem] = []
    return list(reader.read(path, problems.append)), problems


def head(path: Path) -> bytes:
    with path.open("rb") as file:
        return file.read(HEAD_BYTES)
