"""The conformance areas the reference implements, and how a case of each is run.

Every area's cases run against the same `loop.json`; each area reads its own sections of it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .adapter import OPS as CONTEXT_OPS
from .adapter import run_case
from .config import ContextConfig
from .prefix import PREFIX_OPS, run_prefix_case

Runner = Callable[[Mapping[str, Any], Mapping[str, Any]], list[str]]


def _run_context(case: Mapping[str, Any], loop: Mapping[str, Any]) -> list[str]:
    return run_case(case, ContextConfig.from_loop(loop))


_RUNNERS: dict[str, Runner] = {"context": _run_context, "prefix": run_prefix_case}

AREAS: tuple[str, ...] = tuple(_RUNNERS)
OPS_BY_AREA: Mapping[str, frozenset[str]] = {"context": CONTEXT_OPS, "prefix": PREFIX_OPS}


class UnknownArea(ValueError):
    """A case file of an area the reference does not implement."""


def run_area_case(area: str, case: Mapping[str, Any], loop: Mapping[str, Any]) -> list[str]:
    """The text each step of `case`, a case of `area`, shows; `loop` is the parsed loop.json."""
    runner = _RUNNERS.get(area)
    if runner is None:
        raise UnknownArea(f"no area {area!r}; the reference implements {', '.join(AREAS)}")
    return runner(case, loop)
