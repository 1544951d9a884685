"""A recorded session's prompt-cache figures: its requests played again as the mock played them
(the same bodies, caching headers, times and provider), each request's input, read, written and
uncached tokens, the diagnosis of each that read less than it could have (beside the provider's
own verdict, where the mock's answer carried its cache diagnostics), and the session's
totals, hit rate, cost at a price table, and what was lost: to the harness (its changes and its
marks) apart from lifetimes and the provider's rounding and minimums, in tokens and in dollars
at the price those tokens were billed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ctxconf.cache import (
    CacheRequest,
    Diagnosis,
    Figures,
    PriceTable,
    audit,
    loss_cost,
    request_cost,
)
from ctxconf.cache.provider_verdict import (
    ProviderVerdict,
    agreement,
    changed_kind,
    no_change,
    read_verdict,
    verdict_words,
)
from ctxconf.shapes import read_request

from .harness import SessionRun


@dataclass(frozen=True)
class RequestFigures:
    n: int  # its number in the session's log
    model: str
    figures: Figures | None  # None when the provider refused it
    refused: str | None  # the API's message
    output: int
    diagnosis: Diagnosis | None
    headers: dict[str, str]
    cost: Decimal | None  # US dollars; None without a price
    lost_usd: Decimal | None = None  # what the harness's loss cost over reading it
    other_usd: Decimal | None = None  # what lifetimes, rounding and minimums cost
    verdict: ProviderVerdict | None = None  # the provider's own, where a comparison was asked

    @property
    def changed(self) -> str | None:
        """Our cause kind that says the request changed; None: nothing did."""
        causes = self.diagnosis.causes if self.diagnosis is not None else ()
        return changed_kind([c.kind for c in causes])

    @property
    def lost(self) -> int:
        return self.diagnosis.lost if self.diagnosis is not None else 0

    @property
    def other(self) -> int:
        return self.diagnosis.loss.by_provider if self.diagnosis is not None else 0


@dataclass(frozen=True)
class SessionFigures:
    session: int
    provider: str
    requests: tuple[RequestFigures, ...]
    prices: tuple[tuple[str, str, str], ...]  # each price row used: (model row, date, source)

    def total(self, name: str) -> int:
        return sum(getattr(r.figures, name) for r in self.requests if r.figures is not None)

    @property
    def hit_rate(self) -> float | None:
        """What part of the input was read from the cache; None with no input."""
        total = self.total("input_total")
        return self.total("cache_read") / total if total else None

    @property
    def lost(self) -> int:
        """Tokens the harness lost: what keeping its prefix and its marks would have read more."""
        return sum(r.lost for r in self.requests)

    @property
    def other(self) -> int:
        """Tokens lost to lifetimes, rounding and minimums: no harness's to keep."""
        return sum(r.other for r in self.requests)

    @property
    def cost(self) -> Decimal | None:
        return _sum([r.cost for r in self.requests if r.figures is not None])

    @property
    def lost_usd(self) -> Decimal | None:
        return _sum([r.lost_usd for r in self.requests if r.figures is not None])

    @property
    def other_usd(self) -> Decimal | None:
        return _sum([r.other_usd for r in self.requests if r.figures is not None])


def _sum(costs: Sequence[Decimal | None]) -> Decimal | None:
    """A total of dollars; None when one of them has no price."""
    if any(c is None for c in costs):
        return None
    return sum((c for c in costs if c is not None), Decimal(0))


def provider_verdict(entry: dict[str, Any], provider: str) -> ProviderVerdict | None:
    """The provider's verdict the mock's answer carried: None where it asked no comparison (no
    diagnostics, or Anthropic's `previous_message_id: null`, whose `null` says nothing)."""
    if "diagnostics" not in entry:
        return None
    found = entry["diagnostics"]
    if found is not None:
        return read_verdict(found)
    asked = entry.get("body", {}).get("diagnostics")
    compared = isinstance(asked, dict) and asked.get("previous_message_id") is not None
    return no_change(provider) if compared else None


def _played(session: SessionRun) -> dict[str, list[dict[str, Any]]]:
    """The entries the mock played, by provider, in the order it played them."""
    played = [e for e in session.entries if isinstance(e.get("cache"), dict)]
    played.sort(key=lambda e: int(e["cache"]["index"]))
    out: dict[str, list[dict[str, Any]]] = {}
    for entry in played:
        out.setdefault(str(entry["cache"]["provider"]), []).append(entry)
    return out


def _request(entry: dict[str, Any]) -> CacheRequest:
    cache = entry["cache"]
    headers = [(str(k), str(v)) for k, v in dict(cache.get("headers") or {}).items()]
    return read_request(
        entry["shape"],
        entry["body"],
        headers,
        float(cache["at"]),
        model=str(cache["model"]),
        number=int(entry["n"]),
    )


def played_requests(session: SessionRun) -> list[tuple[dict[str, Any], CacheRequest]]:
    """Every request the mock played, with its log entry, in the order played."""
    return [(e, _request(e)) for entries in _played(session).values() for e in entries]


def session_figures(session: SessionRun, prices: PriceTable) -> list[SessionFigures]:
    """One record per provider the session's requests were played under (one, but for a mock
    that was sent two API shapes)."""
    out = []
    for provider, entries in _played(session).items():
        requests = [_request(e) for e in entries]
        result = audit(provider, requests)
        rows: list[RequestFigures] = []
        used: dict[str, tuple[str, str, str]] = {}
        for entry, request, outcome, diagnosis in zip(
            entries, requests, result.outcomes, result.diagnoses, strict=True
        ):
            output = int(entry.get("usage", {}).get("output", 0))
            price = prices.find(provider, request.model)
            cost = lost_usd = other_usd = None
            if price is not None and outcome.figures is not None:
                cost = request_cost(outcome.figures, price, output).total
                used[price.model] = (price.model, price.date, price.source)
                loss = diagnosis.loss if diagnosis is not None else None
                if loss is None:
                    lost_usd = other_usd = Decimal(0)
                else:
                    mine, marks, lifetime, rest = loss_cost(outcome.figures, loss.parts, price)
                    lost_usd, other_usd = mine + marks, lifetime + rest
            refused = outcome.error.message if outcome.error is not None else None
            headers = dict(request.headers)
            rows.append(
                RequestFigures(
                    int(entry["n"]),
                    request.model,
                    outcome.figures,
                    refused,
                    output,
                    diagnosis,
                    headers,
                    cost,
                    lost_usd,
                    other_usd,
                    provider_verdict(entry, provider),
                )
            )
        out.append(SessionFigures(session.index, provider, tuple(rows), tuple(used.values())))
    return out


def _diagnosis(request: RequestFigures, numbers: Sequence[int]) -> dict[str, Any] | None:
    diagnosis = request.diagnosis
    if diagnosis is None:
        return None
    loss = diagnosis.loss
    return {
        "against": numbers[diagnosis.against] if diagnosis.against is not None else None,
        "shared": diagnosis.shared,
        "read": diagnosis.read,
        "lost": diagnosis.lost,
        "lost_other": loss.by_provider,
        "lost_usd": _money(request.lost_usd),
        "lost_other_usd": _money(request.other_usd),
        "loss": {
            "harness": loss.harness,
            "marks": loss.marks,
            "lifetime": loss.lifetime,
            "provider": loss.provider,
            "best_read": loss.best_read,
        },
        "causes": [
            {
                "kind": c.kind,
                "anchor": c.anchor,
                "detail": c.detail,
                "unit": c.unit,
                "byte": c.byte,
                "diff": None
                if c.diff is None
                else {"earlier": c.diff.earlier, "later": c.diff.later, "at": c.diff.at},
            }
            for c in diagnosis.causes
        ],
    }


def _verdict(request: RequestFigures) -> dict[str, Any] | None:
    verdict = request.verdict
    if verdict is None:
        return None
    changed = request.changed
    return {
        "reason": verdict.reason,
        "missed": verdict.missed,
        "agrees": agreement(verdict, changed),
        "words": verdict_words(verdict, changed),
    }


def _money(value: Decimal | None) -> str | None:
    return None if value is None else format(value.normalize(), "f")


def _totals(sessions: Iterable[SessionFigures]) -> dict[str, Any]:
    chosen = list(sessions)
    input_total = sum(s.total("input_total") for s in chosen)
    read = sum(s.total("cache_read") for s in chosen)
    return {
        "requests": sum(len(s.requests) for s in chosen),
        "input_total": input_total,
        "cache_read": read,
        "cache_write": sum(s.total("cache_write") for s in chosen),
        "cache_write_1h": sum(s.total("cache_write_1h") for s in chosen),
        "uncached": input_total - read,
        "hit_rate": read / input_total if input_total else None,
        "lost": sum(s.lost for s in chosen),
        "lost_other": sum(s.other for s in chosen),
        "cost_usd": _money(_sum([s.cost for s in chosen])),
        "lost_usd": _money(_sum([s.lost_usd for s in chosen])),
        "lost_other_usd": _money(_sum([s.other_usd for s in chosen])),
    }


def to_data(sessions: Sequence[SessionFigures]) -> dict[str, Any]:
    """The results file's `cache` section."""
    out = []
    for s in sessions:
        numbers = [r.n for r in s.requests]
        out.append(
            {
                "session": s.session + 1,
                "provider": s.provider,
                "prices": [{"model": m, "date": d, "source": src} for m, d, src in s.prices],
                "totals": _totals([s]),
                "requests": [
                    {
                        "n": r.n,
                        "model": r.model,
                        "input_total": r.figures.input_total if r.figures else None,
                        "cache_read": r.figures.cache_read if r.figures else None,
                        "cache_write": r.figures.cache_write if r.figures else None,
                        "cache_write_1h": r.figures.cache_write_1h if r.figures else None,
                        "uncached": r.figures.uncached if r.figures else None,
                        "output": r.output,
                        "refused": r.refused,
                        "cost_usd": _money(r.cost),
                        "headers": r.headers,
                        "diagnosis": _diagnosis(r, numbers),
                        "provider_verdict": _verdict(r),
                    }
                    for r in s.requests
                ],
            }
        )
    return {"sessions": out, "totals": _totals(sessions)}


__all__ = [
    "RequestFigures",
    "SessionFigures",
    "played_requests",
    "provider_verdict",
    "session_figures",
    "to_data",
]
