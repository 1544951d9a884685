"""What each fix would have saved on a session's own traffic: its bodies played through the
provider's simulator as sent, then with one fix at a time (fixes.py), and the difference in what
was read and what it cost at list prices. Both sides are the simulator's, so the difference is
the fix's alone, whatever the provider's own figures were."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from ctxconf.cache import PriceTable, request_cost, simulate
from ctxconf.shapes import provider_for, read_request

from .bytes_evidence import seconds_apart
from .fixes import FIXES, Body
from .record import AuditRequest


@dataclass(frozen=True)
class Saving:
    fix: str
    read_more: int  # tokens the fixed session reads that the session as sent did not
    saved_usd: Decimal | None  # None where no price row covers the model
    # False where the bodies lack part of what was sent (rebuilt from a harness's record): the
    # figures are then the fix's effect on what the record holds.
    complete: bool = True

    def joined(self, other: Saving) -> Saving:
        """The same fix's savings over both: tokens added, dollars added where both were
        priced, complete where both were."""
        both = (
            self.saved_usd + other.saved_usd
            if self.saved_usd is not None and other.saved_usd is not None
            else None
        )
        return Saving(
            self.fix, self.read_more + other.read_more, both, self.complete and other.complete
        )


def _played(
    shape: str, bodies: Sequence[Body], requests: Sequence[AuditRequest], times: Sequence[float]
) -> tuple[int, list[tuple[AuditRequest, int, int, int, int]]]:
    provider = provider_for(shape, None)
    played = [
        read_request(
            shape,
            body,
            request.headers,
            at,
            model=request.model if shape == "gemini" else None,
            number=n,
        )
        for n, (body, request, at) in enumerate(zip(bodies, requests, times, strict=True))
    ]
    rows = []
    total_read = 0
    for request, outcome in zip(requests, simulate(provider, played), strict=True):
        if outcome.figures is None:
            continue
        f = outcome.figures
        total_read += f.cache_read
        rows.append((request, f.input_total, f.cache_read, f.cache_write, f.cache_write_1h))
    return total_read, rows


def _cost(
    rows: Sequence[tuple[AuditRequest, int, int, int, int]], table: PriceTable
) -> Decimal | None:
    from ctxconf.cache import Figures

    from .costs import price_of

    total = Decimal(0)
    for request, sent, read, written, hour in rows:
        price = price_of(request, table)
        if price is None:
            return None
        total += request_cost(Figures(sent, read, written, hour), price).total
    return total


def session_savings(requests: Sequence[AuditRequest], table: PriceTable) -> list[Saving]:
    """The savings of each fix that changes anything, for a session's requests (in order), over
    those with a body, each API shape played apart."""
    times = seconds_apart(requests)
    by_shape: dict[str, list[int]] = {}
    for index, request in enumerate(requests):
        if request.body is not None and request.shape is not None:
            by_shape.setdefault(request.shape, []).append(index)
    totals: dict[str, Saving] = {}
    for shape, indexes in by_shape.items():
        chosen = [requests[i] for i in indexes]
        complete = all(r.body_complete for r in chosen)
        for saving in _shape_savings(shape, chosen, [times[i] for i in indexes], table):
            saving = dataclasses.replace(saving, complete=complete)
            old = totals.get(saving.fix)
            totals[saving.fix] = saving if old is None else old.joined(saving)
    return list(totals.values())


def _shape_savings(
    shape: str, requests: Sequence[AuditRequest], times: Sequence[float], table: PriceTable
) -> list[Saving]:
    bodies = [request.body or {} for request in requests]
    base_read, base_rows = _played(shape, bodies, requests, times)
    base_cost = _cost(base_rows, table)
    found = []
    for name, fix in FIXES.items():
        fixed = fix(shape, bodies)
        if fixed == bodies:
            continue
        read, rows = _played(shape, fixed, requests, times)
        cost = _cost(rows, table)
        saved = base_cost - cost if base_cost is not None and cost is not None else None
        if read != base_read or (saved is not None and saved != 0):
            found.append(Saving(name, read - base_read, saved))
    return found
