"""A provider's cache as one record: its name, the API shapes it serves, the parameters that
fork its cache, and the simulator that plays a session under its rules."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from .outcome import Outcome
from .request import ApiShape, CacheRequest

Simulate = Callable[[Sequence[CacheRequest]], tuple[Outcome, ...]]
# What a changed parameter loses: the whole cache, or everything from the first message on.
Scope = Literal["all", "messages"]


@dataclass(frozen=True)
class Provider:
    name: str
    description: str
    shapes: tuple[ApiShape, ...]
    forks: Mapping[str, Scope]
    simulate: Simulate


__all__ = ["Provider", "Scope", "Simulate"]
