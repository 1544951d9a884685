"""The provider's cache diagnostics, held against our cause: the reading and the mapping of
its reasons to ctxconf's cause kinds live in the cache audit (`ctxconf.cache.provider_verdict`),
shared with the probe; the audit reaches them here."""

from __future__ import annotations

from ctxconf.cache.provider_verdict import (
    INCONCLUSIVE,
    ProviderVerdict,
    agreement,
    no_change,
    read_verdict,
    verdict_words,
)

__all__ = [
    "INCONCLUSIVE",
    "ProviderVerdict",
    "agreement",
    "no_change",
    "read_verdict",
    "verdict_words",
]
