"""Every provider's cache, registered once: a new one is a module with its `PROVIDER` and one
line here."""

from __future__ import annotations

from collections.abc import Sequence

from ctxconf.errors import DataError

from . import anthropic_rules, gemini_rules, llamacpp_rules, openai_rules
from .outcome import Outcome
from .provider import Provider
from .request import CacheRequest

PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        anthropic_rules.PROVIDER,
        openai_rules.PROVIDER,
        gemini_rules.PROVIDER,
        llamacpp_rules.PROVIDER,
    )
}


def provider_named(name: str) -> Provider:
    found = PROVIDERS.get(name)
    if found is None:
        known = ", ".join(sorted(PROVIDERS))
        raise DataError(f"unknown provider {name!r}: one of {known}")
    return found


def simulate(name: str, requests: Sequence[CacheRequest]) -> tuple[Outcome, ...]:
    """A session's requests, in the order sent, under provider `name`'s rules (which shapes
    those rules apply to is the shapes' registry's to say: `shapes.provider_for`)."""
    return provider_named(name).simulate(requests)


__all__ = ["PROVIDERS", "provider_named", "simulate"]
