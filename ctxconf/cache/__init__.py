"""The cache audit: what a harness's session would read from, write to and leave out of a real
provider's prompt cache, which byte broke it, and what that costs.

Each recorded request (its body, headers and arrival time) is made into the units a provider
hashes by its API shape's reader (`shapes.read_request`); `simulate` plays a session's requests
under one provider's rules (`providers.PROVIDERS`: anthropic, openai, gemini, llamacpp);
`diagnose` names, for each request that read less than it could have, what broke the cache and
where; `prices` prices the figures.
Everything here is pure: times are data, nothing is read from a clock or the network.
"""

from __future__ import annotations

from .audit import Audit, audit
from .bytediff import ByteDiff
from .cause import ANCHORS, Cause
from .diagnosis import Diagnosis, diagnose
from .loss import Loss
from .outcome import ApiError, Figures, Outcome, Shortfall
from .prices import (
    Cost,
    Price,
    PriceTable,
    bundled_prices,
    load_prices,
    loss_cost,
    parse_prices,
    request_cost,
    session_cost,
    with_overrides,
)
from .provider import Provider
from .providers import PROVIDERS, provider_named, simulate
from .request import CacheRequest, CacheSettings, ToolSpec, Unit
from .tokens import BYTES_PER_TOKEN, unit_tokens

__all__ = [
    "ANCHORS",
    "BYTES_PER_TOKEN",
    "PROVIDERS",
    "ApiError",
    "Audit",
    "ByteDiff",
    "CacheRequest",
    "CacheSettings",
    "Cause",
    "Cost",
    "Diagnosis",
    "Figures",
    "Loss",
    "Outcome",
    "Price",
    "PriceTable",
    "Provider",
    "Shortfall",
    "ToolSpec",
    "Unit",
    "audit",
    "bundled_prices",
    "diagnose",
    "load_prices",
    "loss_cost",
    "parse_prices",
    "provider_named",
    "request_cost",
    "session_cost",
    "simulate",
    "unit_tokens",
    "with_overrides",
]
