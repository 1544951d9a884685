"""A session audited in one call: every request's figures under one provider, and each
request's diagnosis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .diagnosis import Diagnosis, diagnose
from .outcome import Outcome
from .providers import provider_named, simulate
from .request import CacheRequest


@dataclass(frozen=True)
class Audit:
    provider: str
    outcomes: tuple[Outcome, ...]
    diagnoses: tuple[Diagnosis | None, ...]


def audit(name: str, requests: Sequence[CacheRequest]) -> Audit:
    outcomes = simulate(name, requests)
    return Audit(name, outcomes, diagnose(provider_named(name), requests, outcomes))


__all__ = ["Audit", "audit"]
