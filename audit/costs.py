"""What a request and a loss cost in dollars, and how sure that figure is.

A figure is *measured* where the source gives its own cost, *computed* from the bundled price
table (or `--prices FILE`) where the model has a row of its own, *estimated* where only the
provider's catch-all row priced it or the source lacks a class (no output count). Where no row
prices the model, there is no figure: N/A, never $0."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from ctxconf.cache import Figures, Price, PriceTable, loss_cost, request_cost
from ctxconf.cache.prices import ANY_MODEL

from .provider_rules import provider_of
from .record import AuditRequest

Label = Literal["measured", "computed", "estimated"]


@dataclass(frozen=True)
class Dollars:
    amount: Decimal
    label: Label


def figures_of(request: AuditRequest) -> Figures | None:
    tokens = request.tokens
    if tokens.total_input is None:
        return None
    return Figures(
        input_total=tokens.total_input,
        cache_read=tokens.read or 0,
        cache_write=tokens.written or 0,
        cache_write_1h=tokens.written_1h or 0,
    )


def price_of(request: AuditRequest, table: PriceTable) -> Price | None:
    provider = provider_of(request)
    if provider is None or not request.model:
        return None
    return table.find(provider, request.model)


def _label(price: Price, request: AuditRequest) -> Label:
    whole = price.model != ANY_MODEL and request.tokens.output is not None
    return "computed" if whole else "estimated"


def request_dollars(request: AuditRequest, table: PriceTable) -> Dollars | None:
    """What the request cost at list prices (input, cache and output)."""
    figures, price = figures_of(request), price_of(request, table)
    if figures is None or price is None:
        return None
    cost = request_cost(figures, price, request.tokens.output or 0)
    return Dollars(cost.total, _label(price, request))


def measured_dollars(request: AuditRequest) -> Dollars | None:
    """The source's own figure for the request, where it keeps one. A cost of 0 for a request
    that sent tokens is the source not knowing the model's price (opencode and pi write 0 for
    a model they cannot price), not a figure."""
    if request.cost_usd is None:
        return None
    if request.cost_usd == 0 and (request.tokens.total_input or 0) > 0:
        return None
    return Dollars(Decimal(str(request.cost_usd)), "measured")


def lost_dollars(request: AuditRequest, lost: int, table: PriceTable) -> Dollars | None:
    """What `lost` tokens cost more than reading them would have: each at the price it was
    billed (an hour's write, a five minutes' write, plain input) less the read price."""
    figures, price = figures_of(request), price_of(request, table)
    if figures is None or price is None or lost <= 0:
        return None
    (amount,) = loss_cost(figures, [lost], price)
    return Dollars(amount, "computed" if price.model != ANY_MODEL else "estimated")
