"""Sessions for the simulator tests: bodies played under a provider, read back as figures."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxconf.cache import (
    Audit,
    CacheRequest,
    Cause,
    Outcome,
    audit,
    simulate,
)
from ctxconf.shapes import read_request


def requests(
    shape: str, timed: Sequence[tuple[float, dict[str, Any]]], model: str | None = None
) -> list[CacheRequest]:
    return [read_request(shape, body, {}, t, model=model) for t, body in timed]


def figures(outcomes: Sequence[Outcome]) -> list[tuple[int, int, int, int] | str]:
    """(input, read, written, of it written for an hour) per request, or the refusal's kind."""
    out: list[tuple[int, int, int, int] | str] = []
    for o in outcomes:
        if o.figures is None:
            assert o.error is not None
            out.append(o.error.kind)
        else:
            f = o.figures
            out.append((f.input_total, f.cache_read, f.cache_write, f.cache_write_1h))
    return out


def play(
    provider: str,
    shape: str,
    timed: Sequence[tuple[float, dict[str, Any]]],
    model: str | None = None,
) -> list[tuple[int, int, int, int] | str]:
    return figures(simulate(provider, requests(shape, timed, model)))


def audited(
    provider: str,
    shape: str,
    timed: Sequence[tuple[float, dict[str, Any]]],
    model: str | None = None,
) -> Audit:
    return audit(provider, requests(shape, timed, model))


def kinds(result: Audit) -> list[list[str]]:
    """Each request's cause kinds, [] for one without a diagnosis."""
    return [[c.kind for c in d.causes] if d else [] for d in result.diagnoses]


def cause(result: Audit, request: int, number: int = 0) -> Cause:
    """The `number`th cause of request `request`'s diagnosis, which must have one."""
    diagnosis = result.diagnoses[request]
    assert diagnosis is not None, f"request {request} has no diagnosis"
    return diagnosis.causes[number]
