"""A source of the tests' own: JSON lines that spell out each request's figures, so that the
command's outputs can be tested apart from any real format."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

from ctxconf.audit.readers.base import Reader, count, json_lines
from ctxconf.audit.record import AuditRequest, Place, Problems, TokenClasses

from .helpers import START


def _read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    for line, value in json_lines(path, problems):
        yield AuditRequest(
            source="fake",
            session=str(value.get("session", "s")),
            place=Place(path, line),
            tokens=TokenClasses(
                count(value.get("uncached")),
                count(value.get("read")),
                count(value.get("w5m")),
                count(value.get("w1h")),
                count(value.get("output")),
            ),
            time=START + timedelta(seconds=value.get("t", 0)),
            model=value.get("model", "claude-sonnet-4-5"),
            provider=value.get("provider", "anthropic"),
            harness=value.get("harness"),
            project=value.get("project"),
            cost_usd=value.get("cost"),
            request_id=value.get("id"),
        )


FAKE = Reader(
    name="fake",
    title="the tests' own records",
    semantics="each figure as written",
    places=lambda home: [home / "fake"],
    claims=lambda path, head: path.suffix == ".fake",
    read=_read,
)
