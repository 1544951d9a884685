"""What the bodies say, where a source keeps them: a session's requests played through the same
cache audit the probe uses, under the rules of the provider of their API shape, so that a
request that read less than it could have gets the probe's cause (the first differing unit and
byte, its kind, the rule it breaks) and the counterfactual of what keeping the prefix would have
read; and a request the bytes say should have read more than it did is the provider's miss."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from ctxconf.cache import CacheRequest, Cause, provider_named
from ctxconf.cache.diagnosis import diagnose_one
from ctxconf.cache.outcome import Expiry, Outcome
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


class Clock:
    """A session's times in seconds from its first timed request, strictly increasing (the
    simulators need it), given one request at a time; a request with no time is taken a second
    after the one before."""

    def __init__(self) -> None:
        self._start: datetime | None = None
        self._last = -1.0

    def at(self, time: datetime | None) -> float:
        if time is not None and self._start is None:
            self._start = time
        since = (time - self._start).total_seconds() if time and self._start else None
        self._last = max(since if since is not None else self._last + 1.0, self._last + 1e-6)
        return self._last


def seconds_apart(requests: Sequence[AuditRequest]) -> list[float]:
    """Each request's time in seconds from the first timed one (`Clock`)."""
    clock = Clock()
    return [clock.at(request.time) for request in requests]


def read_body(request: AuditRequest, index: int, at: float) -> CacheRequest:
    """The request's body as the cache audit reads it, at `at` seconds, named by its place
    (`index`) in the session."""
    shape = request.shape or ""
    return read_request(
        shape,
        request.body or {},
        request.headers,
        at,
        model=request.model if shape == "gemini" else None,
        number=index + 1,
    )


class BodiesPlayed:
    """One API shape's bodies of a session, played through its provider's rules one at a time
    (as caches are, apart from other shapes'), each given its finding as it comes. The bodies
    played are kept; `keep_last` lets the oldest go, the rules then played again over the rest,
    so that a session without end (the proxy's live view) holds a bounded number."""

    def __init__(self, shape: str) -> None:
        self.provider = provider_for(shape, None)
        self.rules = provider_named(self.provider)
        self._session = self.rules.player()
        self.indexes: list[int] = []  # each body's index in the session
        self._read: list[CacheRequest] = []  # as the provider read them
        self._outcomes: list[Outcome] = []

    def add(self, index: int, request: CacheRequest, diagnosed: bool = True) -> BytesFinding:
        """The finding of the session's request `index`, its body read as `request`; its
        diagnosis (which plays the bodies again for each counterfactual) only if `diagnosed`."""
        # Compared as the provider read it (as the probe compares): the reasoning it drops by
        # itself is no change of the harness's.
        read = self.rules.reads(request)
        outcome = self._session.add(read)
        self.indexes.append(index)
        self._read.append(read)
        self._outcomes.append(outcome)
        n = len(self._read) - 1
        diagnosis = diagnose_one(self.rules, self._read, self._outcomes, n) if diagnosed else None
        against = diagnosis.against if diagnosis is not None else None
        return BytesFinding(
            provider=self.provider,
            simulated_read=outcome.figures.cache_read if outcome.figures else None,
            simulated_input=outcome.figures.input_total if outcome.figures else None,
            against=self.indexes[against] if against is not None else None,
            shared=diagnosis.shared if diagnosis else 0,
            lost_to_harness=diagnosis.lost if diagnosis else 0,
            causes=diagnosis.causes if diagnosis else (),
            expiry=outcome.expired,
        )

    @property
    def times(self) -> list[float]:
        """The time each body kept was played at, in order."""
        return [read.time for read in self._read]

    def keep_last(self, count: int) -> None:
        """Let all but the last `count` bodies go."""
        if count >= len(self._read):
            return
        first = len(self._read) - count
        self.indexes, self._read = self.indexes[first:], self._read[first:]
        self._session = self.rules.player()
        self._outcomes = [self._session.add(read) for read in self._read]


def bytes_findings(
    requests: Sequence[AuditRequest], diagnosed: Collection[int] | None = None
) -> dict[int, BytesFinding]:
    """For a session's requests (in order), the findings of those with a body, keyed by their
    index in `requests`. Bodies of different API shapes are played apart, as caches are. Every
    one gets what the rules read of it; only those in `diagnosed` (every one, where it is None)
    are diagnosed, since a diagnosis plays the session again for each counterfactual."""
    found: dict[int, BytesFinding] = {}
    shapes: dict[str, BodiesPlayed] = {}
    for index, (request, at) in enumerate(zip(requests, seconds_apart(requests), strict=True)):
        if request.body is None or request.shape is None:
            continue
        bodies = shapes.get(request.shape)
        if bodies is None:
            bodies = shapes[request.shape] = BodiesPlayed(request.shape)
        wanted = diagnosed is None or index in diagnosed
        found[index] = bodies.add(index, read_body(request, index, at), wanted)
    return found
