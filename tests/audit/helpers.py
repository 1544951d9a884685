"""Requests made by hand for the audit's tests: figures chosen so each expected value can be
worked out in the test itself."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from ctxconf.audit.record import AuditRequest, Place, TokenClasses

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
