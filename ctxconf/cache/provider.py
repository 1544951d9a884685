"""A provider's cache as one record: its name, the parameters that fork its cache, and the
simulator that plays a session under its rules. Which API shapes its rules apply to is said by
each shape (`shapes/`), so a new shape touches no provider."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from .outcome import Outcome
from .request import CacheRequest

Simulate = Callable[[Sequence[CacheRequest]], tuple[Outcome, ...]]
# What a changed parameter loses: the whole cache, or everything from the first message on.
Scope = Literal["all", "messages"]


def as_sent(request: CacheRequest) -> CacheRequest:
    return request


@dataclass(frozen=True)
class Provider:
    name: str
    description: str
    forks: Mapping[str, Scope]
    simulate: Simulate  # plays each request as `reads` gives it
    # A request as the provider reads it: what it drops by itself taken out (`reasoning.py`).
    reads: Callable[[CacheRequest], CacheRequest] = as_sent


__all__ = ["Provider", "Scope", "Simulate", "as_sent"]
