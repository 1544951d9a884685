"""The figures of an audit: per session and in all, the hit rate, what was lost and to whom,
what it cost, the causes by what they cost and the costliest requests. Every sum is of what
the requests were billed; a figure no request could give is N/A (None), never 0."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from ctxconf.cache import PriceTable

from .causes import Blame
from .costs import Dollars, lost_dollars, measured_dollars, price_of, request_dollars
from .sessions import SessionAudit
from .timeline import Step

BLAMES: tuple[Blame, ...] = ("harness", "provider", "boundary", "unknown")


@dataclass
class Tally:
    """Sums over some requests; `priced` and `unpriced` count what a dollar figure covers."""

    requests: int = 0
    with_figures: int = 0
    sent: int = 0  # input tokens of the requests with cache figures
    read: int = 0
    written: int = 0
    lost: dict[str, int] = field(default_factory=lambda: dict.fromkeys(BLAMES, 0))
    lost_usd: dict[str, Decimal] = field(default_factory=lambda: dict.fromkeys(BLAMES, Decimal(0)))
    lost_priced: dict[str, int] = field(default_factory=lambda: dict.fromkeys(BLAMES, 0))
    losses: int = 0
    cost_usd: Decimal = Decimal(0)
    priced: int = 0
    measured_usd: Decimal = Decimal(0)
    measured: int = 0
    unpriced_losses: int = 0
    # What tools that read these records another way get wrong (docs/audit.md): an hour's
    # writes priced at the five minutes' rate, placeholder input counts taken as figures.
    written_1h: int = 0
    hour_premium_usd: Decimal = Decimal(0)
    placeholders: int = 0

    @property
    def hit_rate(self) -> float | None:
        return self.read / self.sent if self.with_figures and self.sent else None

    @property
    def lost_total(self) -> int:
        return sum(self.lost.values())

    @property
    def lost_usd_total(self) -> Decimal:
        return sum(self.lost_usd.values(), Decimal(0))


@dataclass(frozen=True)
class LossRow:
    session: SessionAudit
    index: int
    step: Step
    dollars: Dollars | None


@dataclass(frozen=True)
class CauseRow:
    kind: str
    blame: str
    count: int
    tokens: int
    usd: Decimal | None  # None: no loss of this kind was priced


def add_step(tally: Tally, step: Step, table: PriceTable) -> Dollars | None:
    request, tokens = step.request, step.request.tokens
    tally.requests += 1
    if tokens.read is not None and tokens.total_input is not None:
        tally.with_figures += 1
        tally.sent += tokens.total_input
        tally.read += tokens.read
        tally.written += tokens.written or 0
    cost = request_dollars(request, table)
    if cost is not None:
        tally.cost_usd += cost.amount
        tally.priced += 1
    tally.written_1h += tokens.written_1h or 0
    price = price_of(request, table)
    if price is not None and tokens.written_1h:
        tally.hour_premium_usd += (
            tokens.written_1h * (price.cache_write_1h - price.cache_write) / Decimal(1_000_000)
        )
    if request.extra.get("input_placeholder"):
        tally.placeholders += 1
    own = measured_dollars(request)
    if own is not None:
        tally.measured_usd += own.amount
        tally.measured += 1
    if step.lost <= 0 or step.cause is None:
        return None
    tally.losses += 1
    blame = step.cause.blame
    tally.lost[blame] += step.lost
    lost = lost_dollars(request, step.lost, table)
    if lost is None:
        tally.unpriced_losses += 1
    else:
        tally.lost_usd[blame] += lost.amount
        tally.lost_priced[blame] += 1
    return lost


@dataclass(frozen=True)
class Summary:
    sessions: tuple[tuple[SessionAudit, Tally], ...]
    total: Tally
    losses: tuple[LossRow, ...]  # every loss, costliest first

    def causes(self) -> list[CauseRow]:
        rows: dict[str, CauseRow] = {}
        for loss in self.losses:
            cause = loss.step.cause
            assert cause is not None
            old = rows.get(cause.kind, CauseRow(cause.kind, cause.blame, 0, 0, None))
            usd = old.usd
            if loss.dollars is not None:
                usd = (usd or Decimal(0)) + loss.dollars.amount
            rows[cause.kind] = CauseRow(
                old.kind, old.blame, old.count + 1, old.tokens + loss.step.lost, usd
            )
        return sorted(rows.values(), key=lambda r: (-(r.usd or Decimal(-1)), -r.tokens, r.kind))


def _cost_key(row: LossRow) -> tuple[Decimal, int]:
    return (row.dollars.amount if row.dollars else Decimal(-1), row.step.lost)


def summarize(audits: Sequence[SessionAudit], table: PriceTable) -> Summary:
    total = Tally()
    sessions = []
    losses: list[LossRow] = []
    for session in audits:
        tally = Tally()
        for index, step in enumerate(session.steps):
            lost = add_step(tally, step, table)
            add_step(total, step, table)
            if step.lost > 0 and step.cause is not None:
                losses.append(LossRow(session, index, step, lost))
        sessions.append((session, tally))
    losses.sort(key=_cost_key, reverse=True)
    return Summary(tuple(sessions), total, tuple(losses))
