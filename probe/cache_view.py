"""The cache figures of a results file as people read them: the console's lines, the run page's
and per-request bars. Read from the results file's
`cache` section only (a file written before it had none, and shows none)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

BAR_WIDTH = 400  # pixels for the longest request's input


def percent(rate: float | None) -> str:
    return "—" if rate is None else f"{rate * 100:.1f} %"


def dollars(cost: str | None) -> str:
    return "no price for its model" if cost is None else f"${cost}"


def console_lines(data: dict[str, Any]) -> list[str]:
    """One line per session: input, read, written, uncached, hit rate, cost."""
    lines = []
    for session in (data.get("cache") or {}).get("sessions", []):
        t = session["totals"]
        lines.append(
            f"  cache, session {session['session']} under {session['provider']}: "
            f"input {t['input_total']:,}, read {t['cache_read']:,}, "
            f"written {t['cache_write']:,}, uncached {t['uncached']:,}, "
            f"hit rate {percent(t['hit_rate'])}, re-read {t['reread']:,}, "
            f"cost {dollars(t['cost_usd'])}"
        )
    return lines


@dataclass(frozen=True)
class Bar:
    n: int
    read: int
    uncached: int
    read_px: int
    uncached_px: int
    refused: str | None
    causes: list[dict[str, Any]]
    lost: int


def bars(session: dict[str, Any]) -> list[Bar]:
    """Each request's cached and uncached parts, drawn to one scale for the session."""
    rows = session["requests"]
    widest = max((r["input_total"] or 0 for r in rows), default=0) or 1
    out = []
    for r in rows:
        read, uncached = r["cache_read"] or 0, r["uncached"] or 0
        diagnosis = r["diagnosis"] or {}
        out.append(
            Bar(
                r["n"],
                read,
                uncached,
                round(read * BAR_WIDTH / widest),
                round(uncached * BAR_WIDTH / widest),
                r["refused"],
                list(diagnosis.get("causes", [])),
                int(diagnosis.get("lost", 0)),
            )
        )
    return out


__all__ = ["BAR_WIDTH", "Bar", "bars", "console_lines", "dollars", "percent"]
