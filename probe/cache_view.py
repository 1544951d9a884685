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


def lost_words(tokens: int, cost: str | None) -> str:
    """Tokens lost, with their cost where a price was found."""
    return f"{tokens:,} tokens" + (f" (${cost})" if cost is not None else "")


# The provider's granularity: what no harness could have read at this size.
GRANULARITY = frozenset({"below-minimum", "rounding", "no-caching"})
HINT_PADDING = 4000


def nothing_to_save(data: dict[str, Any]) -> str | None:
    """When every token a run did not read was under the provider's minimum or past its steps,
    the words that say the harness lost nothing it could save, and how to see more; else None."""
    sessions = (data.get("cache") or {}).get("sessions", [])
    rows = [r for s in sessions for r in s["requests"]]
    kinds = {c["kind"] for r in rows if r["diagnosis"] for c in r["diagnosis"]["causes"]}
    lost = sum(s["totals"]["lost"] for s in sessions)
    # Rounding alone is no matter of size: only a minimum or a model without a cache is.
    if not kinds <= GRANULARITY or not kinds - {"rounding"} or lost:
        return None
    return (
        "the harness lost nothing it could save: what it did not read was under the provider's "
        "minimum or past its steps, as at this size it must be. To see what a change would "
        f"cost at a realistic size, probe it with --padding {HINT_PADDING}, or with --provider "
        "llamacpp, which caches from the first token"
    )


def console_lines(data: dict[str, Any]) -> list[str]:
    """One line per session: input, read, written, uncached, hit rate, cost, and what was lost
    to the harness apart from lifetimes and rounding."""
    lines = []
    for session in (data.get("cache") or {}).get("sessions", []):
        t = session["totals"]
        lines.append(
            f"  cache, session {session['session']} under {session['provider']}: "
            f"input {t['input_total']:,}, read {t['cache_read']:,}, "
            f"written {t['cache_write']:,}, uncached {t['uncached']:,}, "
            f"hit rate {percent(t['hit_rate'])}, cost {dollars(t['cost_usd'])}; "
            f"lost to the harness {lost_words(t['lost'], t['lost_usd'])}, "
            f"to lifetimes and rounding {lost_words(t['lost_other'], t['lost_other_usd'])}"
        )
    hint = nothing_to_save(data)
    if hint is not None:
        lines.append(f"  {hint}")
    return lines


@dataclass(frozen=True)
class Bar:
    n: int
    read: int
    written: int
    uncached: int  # written tokens among them
    read_px: int
    written_px: int
    neither_px: int  # uncached and not written
    refused: str | None
    causes: list[dict[str, Any]]
    lost: int
    lost_usd: str | None
    lost_other: int
    lost_other_usd: str | None
    # The provider's own diagnostics beside our cause, in words; None where none was answered.
    provider: str | None = None


def bars(session: dict[str, Any]) -> list[Bar]:
    """Each request's cached and uncached parts, drawn to one scale for the session."""
    rows = session["requests"]
    widest = max((r["input_total"] or 0 for r in rows), default=0) or 1
    out = []
    for r in rows:
        read, uncached = r["cache_read"] or 0, r["uncached"] or 0
        written = r["cache_write"] or 0
        diagnosis = r["diagnosis"] or {}
        out.append(
            Bar(
                r["n"],
                read,
                written,
                uncached,
                round(read * BAR_WIDTH / widest),
                round(written * BAR_WIDTH / widest),
                round((uncached - written) * BAR_WIDTH / widest),
                r["refused"],
                list(diagnosis.get("causes", [])),
                int(diagnosis.get("lost", 0)),
                diagnosis.get("lost_usd"),
                int(diagnosis.get("lost_other", 0)),
                diagnosis.get("lost_other_usd"),
                (r.get("provider_verdict") or {}).get("words"),
            )
        )
    return out


__all__ = [
    "BAR_WIDTH",
    "Bar",
    "bars",
    "console_lines",
    "dollars",
    "lost_words",
    "nothing_to_save",
    "percent",
]
