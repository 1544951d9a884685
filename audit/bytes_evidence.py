"""What the bodies say, where a source keeps them: a session's requests played through the same
cache audit the probe uses, under the rules of the provider of their API shape, so that a
request that read less than it could have gets the probe's cause (the first differing unit and
byte, its kind, the rule it breaks) and the counterfactual of what keeping the prefix would have
read; and a request the bytes say should have read more than it did is the provider's miss."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ctxconf.cache import CacheRequest, Cause, provider_named
from ctxconf.cache.diagnosis import diagnose_one
from ctxconf.cache.outcome import Expiry
from ctxconf.shapes import provider_for, read_request

from .record import AuditRequest


@dataclass(frozen=True)
class BytesFinding:
    """One request's evidence from the bytes.

    `simulated_read` is what the provider's rules read of this body given the earlier bodies in
    their lifetimes, of its `simulated_input` (both in the cache audit's estimated tokens);
    `against` the index (in the session's bodies) of the request it goes on from;
    `lost_to_harness` what keeping that request's prefix and marks would have read more;
    `causes` the probe's causes, first the harness's changes."""

    provider: str
    simulated_read: int | None
    simulated_input: int | None  # the whole body, in the estimate's tokens
    against: int | None
    shared: int
    lost_to_harness: int
    causes: tuple[Cause, ...]
    expiry: Expiry | None


def seconds_apart(requests: Sequence[AuditRequest]) -> list[float]:
    """Each request's time in seconds from the first, strictly increasing (the simulators need
    it); a request with no time is taken a second after the one before."""
    times: list[float] = []
    start = next((r.time for r in requests if r.time is not None), None)
    for request in requests:
        at = (request.time - start).total_seconds() if request.time and start else None
        last = times[-1] if times else -1.0
        times.append(max(at if at is not None else last + 1.0, last + 1e-6))
    return times


def _read(
    requests: Sequence[AuditRequest], i: int, at: float, known: dict[int, CacheRequest] | None
) -> CacheRequest:
    if known is not None and i in known:
        return known[i]
    request = requests[i]
    shape = request.shape or ""
    read = read_request(
        shape,
        request.body or {},
        request.headers,
        at,
        model=request.model if shape == "gemini" else None,
        number=i + 1,  # the words name it by its place in the session
    )
    if known is not None:
        known[i] = read
    return read


def bytes_findings(
    requests: Sequence[AuditRequest],
    diagnosed: Collection[int] | None = None,
    known: dict[int, CacheRequest] | None = None,
) -> dict[int, BytesFinding]:
    """For a session's requests (in order), the findings of those with a body, keyed by their
    index in `requests`. Bodies of different API shapes are played apart, as caches are. Every
    one gets what the rules read of it; only those in `diagnosed` (every one, where it is None)
    are diagnosed, since a diagnosis plays the session again for each counterfactual.

    `known` keeps each body as the cache audit read it, by index, for a caller that asks again
    as its session grows (the proxy's live view): a request's reading depends on the requests up
    to it alone, so a body is read once, not once for each request after it."""
    found: dict[int, BytesFinding] = {}
    by_shape: dict[str, list[int]] = {}
    for index, request in enumerate(requests):
        if request.body is not None and request.shape is not None:
            by_shape.setdefault(request.shape, []).append(index)
    times = seconds_apart(requests)
    for shape, indexes in by_shape.items():
        provider = provider_for(shape, None)
        played = [_read(requests, i, times[i], known) for i in indexes]
        rules = provider_named(provider)
        outcomes = rules.simulate(played)
        # Compared as the provider read them (as the probe compares them): the reasoning it
        # drops by itself is no change of the harness's.
        read = [rules.reads(r) for r in played]
        for n, i in enumerate(indexes):
            outcome = outcomes[n]
            wanted = diagnosed is None or i in diagnosed
            diagnosis = diagnose_one(rules, read, outcomes, n) if wanted else None
            found[i] = BytesFinding(
                provider=provider,
                simulated_read=outcome.figures.cache_read if outcome.figures else None,
                simulated_input=outcome.figures.input_total if outcome.figures else None,
                against=indexes[diagnosis.against]
                if diagnosis and diagnosis.against is not None
                else None,
                shared=diagnosis.shared if diagnosis else 0,
                lost_to_harness=diagnosis.lost if diagnosis else 0,
                causes=diagnosis.causes if diagnosis else (),
                expiry=outcome.expired,
            )
    return found
