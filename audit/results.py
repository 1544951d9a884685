"""An audit as one JSON document (schema: schemas/audit-results.schema.json), made only from the
summary; the console, the page and the bundle are all drawn from it, so they never disagree."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from ctxconf import __version__

from .costs import Dollars
from .record import Problem
from .savings import Saving
from .summary import Summary, Tally
from .timeline import Step

FORMAT = "ctxconf-audit-results"
FORMAT_VERSION = 1


def _usd(amount: Decimal | None) -> float | None:
    return None if amount is None else float(round(amount, 6))


def _dollars(dollars: Dollars | None) -> dict[str, Any] | None:
    return None if dollars is None else {"usd": _usd(dollars.amount), "label": dollars.label}


def _tally(tally: Tally) -> dict[str, Any]:
    return {
        "requests": tally.requests,
        "with_cache_figures": tally.with_figures,
        "input_tokens": tally.sent,
        "read_tokens": tally.read,
        "written_tokens": tally.written,
        "hit_rate": None if tally.hit_rate is None else round(tally.hit_rate, 6),
        "losses": tally.losses,
        "lost_tokens": dict(tally.lost),
        # N/A where tokens were lost and no price row covered any of them.
        "lost_usd": {
            blame: None if tally.lost[blame] and not tally.lost_priced[blame] else _usd(amount)
            for blame, amount in tally.lost_usd.items()
        },
        "losses_unpriced": tally.unpriced_losses,
        # The sum of what the priced losses cost; N/A where tokens were lost and none priced.
        "lost_usd_total": None
        if tally.lost_total and not any(tally.lost_priced.values())
        else _usd(tally.lost_usd_total),
        "cost_usd": _usd(tally.cost_usd) if tally.priced else None,
        "requests_priced": tally.priced,
        "measured_cost_usd": _usd(tally.measured_usd) if tally.measured else None,
        "requests_measured": tally.measured,
        "written_1h_tokens": tally.written_1h,
        "hour_premium_usd": _usd(tally.hour_premium_usd),
        "placeholder_inputs": tally.placeholders,
    }


def _step(index: int, step: Step, lost: Dollars | None) -> dict[str, Any]:
    request, tokens = step.request, step.request.tokens
    row: dict[str, Any] = {
        "index": index,
        "time": request.time.isoformat() if request.time else None,
        "file": str(request.place.file),
        "line": request.place.line,
        "pointer": request.place.pointer,
        "request_id": request.request_id,
        "model": request.model,
        "sidechain": request.sidechain,
        "boundary": request.boundary,
        "uncached": tokens.uncached,
        "read": tokens.read,
        "written_5m": tokens.written_5m,
        "written_1h": tokens.written_1h,
        "output": tokens.output,
        "gap_s": None if step.gap is None else round(step.gap, 3),
        "held_against": step.previous,
        "readable": step.readable,
        "lost": step.lost,
        "lost_usd": _dollars(lost),
        "cause": None,
        "provider_verdict": None,
    }
    if step.cause is not None:
        cause = step.cause
        row["cause"] = {
            "kind": cause.kind,
            "basis": cause.basis,
            "blame": cause.blame,
            "rule": cause.anchor,
            "detail": cause.detail,
            "unit": cause.unit,
            "byte": cause.byte,
        }
    if step.verdict is not None:
        row["provider_verdict"] = {
            "provider": step.verdict.provider,
            "reason": step.verdict.reason,
            "missed_tokens": step.verdict.missed,
            "agrees": step.agrees,
        }
    return row


def _saving(saving: Saving) -> dict[str, Any]:
    return {
        "fix": saving.fix,
        "read_more_tokens": saving.read_more,
        "saved_usd": _usd(saving.saved_usd),
        "bodies_complete": saving.complete,
    }


def _total_savings(summary: Summary) -> list[dict[str, Any]]:
    totals: dict[str, Saving] = {}
    for session, _ in summary.sessions:
        for saving in session.savings:
            old = totals.get(saving.fix)
            totals[saving.fix] = saving if old is None else old.joined(saving)
    ranked = sorted(totals.values(), key=lambda s: (-(s.saved_usd or Decimal(-1)), -s.read_more))
    return [_saving(saving) for saving in ranked]


def results(
    summary: Summary, paths: Sequence[str], problems: Sequence[Problem], prices: str
) -> dict[str, Any]:
    lost_by_step = {(id(row.session), row.index): row.dollars for row in summary.losses}
    sessions = []
    for session, tally in summary.sessions:
        sessions.append(
            {
                "source": session.source,
                "session": session.session,
                "harness": session.harness,
                "project": session.project,
                "started": session.started.isoformat() if session.started else None,
                "figures": _tally(tally),
                "savings": [_saving(saving) for saving in session.savings],
                "timeline": [
                    _step(i, step, lost_by_step.get((id(session), i)))
                    for i, step in enumerate(session.steps)
                ],
            }
        )
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "ctxconf_version": __version__,
        "paths": list(paths),
        "prices": prices,
        "problems": [
            {
                "file": str(p.place.file),
                "line": p.place.line,
                "pointer": p.place.pointer,
                "message": p.message,
            }
            for p in problems
        ],
        "figures": _tally(summary.total),
        "causes": [
            {
                "kind": row.kind,
                "blame": row.blame,
                "losses": row.count,
                "lost_tokens": row.tokens,
                "lost_usd": _usd(row.usd),
            }
            for row in summary.causes()
        ],
        "savings": _total_savings(summary),
        "sessions": sessions,
    }
