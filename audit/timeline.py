"""A session's requests as a timeline of losses: each request held against what the request
before it (of the same model, in the same thread) left readable, and every request that read
less given a cause.

A loss is a request that read less than the one before it left readable (its read and its write
under explicit marks; its whole prompt within the provider's steps under implicit caching),
capped by what it sent. Within the lifetime it is a break; past it, the entry's end. The lost
tokens are what it would have read had the break not happened less what it read."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import get_args

from ctxconf.cache.outcome import RefusalKind, ShortfallKind, lifetime_label
from ctxconf.cache.provider_verdict import ProviderVerdict, agreement, read_verdict

from .bytes_evidence import BytesFinding
from .causes import PROVIDER_REASON_ANCHORS, AuditCause, from_bytes, inferred
from .provider_rules import (
    explicit_writes,
    implicit_readable,
    lifetime_seconds,
    provider_of,
    step_tokens,
)
from .record import AuditRequest

# A read this close to the thread's floor is the floor (tokenizers and small system-prompt
# drift move it by a few tokens between requests).
FLOOR_SLACK = 0.02
# A read below this share of what was readable fell to "about zero".
ABOUT_ZERO = 0.05
# The probe's cause kinds that come of the provider's rules applied to the whole body (its
# marks, minimums, steps, refusals, lifetimes), not of a change to what was sent.
RULE_KINDS = frozenset((*get_args(ShortfallKind), *get_args(RefusalKind), "expired"))


@dataclass(frozen=True)
class Step:
    """One request in its session's timeline."""

    request: AuditRequest
    previous: int | None  # index in the session of the request it is held against
    gap: float | None  # seconds since that request
    readable: int | None  # what that request left readable to it; None: nothing to hold against
    lost: int  # tokens it read less than it could have (0: no loss)
    cause: AuditCause | None
    verdict: ProviderVerdict | None  # the provider's own word on it
    agrees: bool | None  # whether our cause and the provider's agree (None: nothing to hold)
    finding: BytesFinding | None


def left_readable(request: AuditRequest) -> int | None:
    """What `request` leaves in the cache for the next, or None where its source has no cache
    figure."""
    tokens = request.tokens
    if tokens.read is None:
        return None
    provider = provider_of(request)
    marked = tokens.read + (tokens.written or 0)
    if explicit_writes(provider) or tokens.total_input is None:
        return marked
    return max(marked, implicit_readable(provider, request.model, tokens.total_input))


def _thread(request: AuditRequest) -> tuple[bool, str | None]:
    return (request.sidechain, request.model)


@dataclass
class _Thread:
    """What a thread's requests so far say that a loss's cause needs: the least positive read
    after its first request (what the system prompt and tools alone hold, where a rewritten
    history falls to), and which lifetimes its writes chose."""

    count: int = 0
    floor: int | None = None
    hours: bool = False  # some request wrote for an hour, or asked to
    minutes: bool = False  # some request wrote for five minutes

    def add(self, request: AuditRequest) -> None:
        tokens = request.tokens
        if self.count and tokens.read:
            self.floor = tokens.read if self.floor is None else min(self.floor, tokens.read)
        self.hours = self.hours or (tokens.written_1h or 0) > 0 or request.lifetime == "1h"
        self.minutes = self.minutes or (tokens.written_5m or 0) > 0
        self.count += 1

    def lifetimes(self, provider: str | None) -> tuple[float, float]:
        """The shortest and the longest lifetime the thread's writes chose so far."""
        longest = lifetime_seconds(provider, "1h" if self.hours else "5m")
        shortest = lifetime_seconds(provider, "5m" if self.minutes or not self.hours else "1h")
        return shortest, longest


def _expired(gap: float | None, shortest: float, longest: float, read: int) -> AuditCause | None:
    if gap is None or gap <= shortest:
        return None
    pause = f"{gap / 60:,.1f} min"
    if gap > longest:
        return inferred(
            "expired",
            f"{pause} since the request before, past the entries' lifetime of "
            f"{lifetime_label(longest)}: the provider had let them go",
        )
    if read > 0:
        return inferred(
            "expired",
            f"{pause} since the request before: the {lifetime_label(shortest)} entries had "
            f"ended, the {lifetime_label(longest)} ones were read",
        )
    return None


def _from_boundary(request: AuditRequest, before: AuditRequest) -> AuditCause | None:
    if request.model != before.model and before.model is not None:
        return inferred(
            "model-changed",
            f"the model changed from {before.model} to {request.model}: a cache is per model",
        )
    boundary = request.boundary or ""
    if boundary.startswith("compaction"):
        return inferred("compaction", "the history was compacted before this request")
    if boundary.startswith("version"):
        return inferred("version-changed", f"the harness was updated ({boundary})")
    if boundary.startswith("resume"):
        return inferred(
            "resume",
            "the session was resumed here and did not send what the live one would have",
        )
    return None


def _from_figures(read: int, readable: int, floor: int | None) -> AuditCause:
    if read <= readable * ABOUT_ZERO:
        return inferred(
            "prefix-changed",
            f"the read fell to {read:,} of {readable:,}: the system prompt, the tools or a "
            "cache parameter changed (or the provider dropped the entry); the bytes were not "
            "kept, so which is not known",
        )
    if floor is not None and abs(read - floor) <= max(floor * FLOOR_SLACK, 1) and floor < readable:
        return inferred(
            "history-rewritten",
            f"the read fell to {read:,}, the session's floor of system prompt and tools: an "
            "earlier message was changed, removed or re-serialized",
        )
    return inferred(
        "unexplained",
        f"read {read:,} of the {readable:,} the request before left readable; the bytes were "
        "not kept, so where it broke is not known",
    )


def _from_provider(verdict: ProviderVerdict) -> AuditCause | None:
    if not verdict.says_changed:
        return None
    detail = f"the provider's diagnostics say {verdict.reason}"
    if verdict.missed is not None:
        detail += f" ({verdict.missed:,} tokens by its estimate)"
    return AuditCause(
        verdict.reason, "provider", detail, PROVIDER_REASON_ANCHORS.get(verdict.reason)
    )


def _from_finding(
    finding: BytesFinding, read: int, could: int, step: int, complete: bool
) -> AuditCause | None:
    """The bytes' cause. Where the provider's rules read more of these bytes than the provider
    did, that part of the loss is the provider's own miss; the bytes' causes explain the rest
    (what the rules could not read either). The larger part names the loss. From a body that
    lacks part of what was sent, only a change to what it holds is named: what the provider's
    rules would have read of it is not known."""
    usable = [c for c in finding.causes if complete or c.kind not in RULE_KINDS]
    simulated = finding.simulated_read if complete else None
    missed = simulated - read if simulated is not None else 0
    if missed >= step and missed >= could - (simulated or 0):
        also = f"; the rest: {usable[0].detail}" if usable else ""
        return AuditCause(
            "provider-side",
            "bytes",
            f"the provider's rules read {simulated:,} of these bytes, the provider read "
            f"{read:,}: what it shares with the request before was within its lifetime{also}",
            None,
        )
    if usable:
        harness = [c for c in usable if c.kind not in ("expired", "rounding")]
        cause = from_bytes((harness or usable)[0])
        if not complete and finding.shared > read + step:
            # The bytes kept share more than was read: what the record leaves out changed too.
            cause = dataclasses.replace(
                cause,
                detail=f"{cause.detail}; the bytes the record keeps share about "
                f"{finding.shared:,} tokens with the request before, yet it read {read:,}: what "
                "the record does not keep (Claude Code's billing line, Codex's built-in tools) "
                "changed as well",
            )
        return cause
    return None


def _explain(
    request: AuditRequest,
    before: AuditRequest,
    gap: float | None,
    readable: int,
    thread: _Thread,
    finding: BytesFinding | None,
    verdict: ProviderVerdict | None,
) -> AuditCause:
    read = request.tokens.read or 0
    provider = provider_of(request)
    if finding is not None:
        complete = request.body_complete and before.body_complete
        could = min(readable, request.tokens.total_input or readable)
        found = _from_finding(finding, read, could, step_tokens(provider), complete)
        if found is not None:
            return found
    shortest, longest = thread.lifetimes(provider)
    return (
        _expired(gap, shortest, longest, read)
        or (_from_provider(verdict) if verdict is not None else None)
        or _from_boundary(request, before)
        or _from_figures(read, readable, thread.floor)
    )


class Timeline:
    """One session's timeline made a request at a time, in the order given (the caller sorts
    them): each step depends on the requests before it alone, so a session that grows (the
    proxy's live view) adds its new request, not the whole session again."""

    def __init__(self) -> None:
        # Per thread (and per model in it), the last request and its index in the session.
        self._last: dict[tuple[bool, str | None], tuple[int, AuditRequest]] = {}
        self._last_of_thread: dict[bool, tuple[int, AuditRequest]] = {}
        self._threads: dict[tuple[bool, str | None], _Thread] = {}
        self._count = 0

    def add(self, request: AuditRequest, finding: BytesFinding | None = None) -> Step:
        key = _thread(request)
        # Held against the last request of its model in its thread, else (a new model) the
        # thread's last request of any model.
        previous = self._last.get(key, self._last_of_thread.get(request.sidechain))
        thread = self._threads.setdefault(key, _Thread())
        step = _step(request, previous, thread, finding, read_verdict(request.diagnostics))
        thread.add(request)
        self._last[key] = self._last_of_thread[request.sidechain] = (self._count, request)
        self._count += 1
        return step


def session_timeline(
    requests: Sequence[AuditRequest], findings: dict[int, BytesFinding] | None = None
) -> list[Step]:
    """The steps of one session's requests, in the order given (the caller sorts them)."""
    findings = findings or {}
    timeline = Timeline()
    return [timeline.add(request, findings.get(index)) for index, request in enumerate(requests)]


def _step(
    request: AuditRequest,
    previous: tuple[int, AuditRequest] | None,
    thread: _Thread,
    finding: BytesFinding | None,
    verdict: ProviderVerdict | None,
) -> Step:
    before_index = previous[0] if previous is not None else None

    def plain(readable: int | None = None, gap: float | None = None) -> Step:
        agrees = agreement(verdict, None) if verdict is not None else None
        return Step(request, before_index, gap, readable, 0, None, verdict, agrees, finding)

    read = request.tokens.read
    if previous is None or read is None:
        return plain()
    before = previous[1]
    readable = left_readable(before)
    gap = (
        (request.time - before.time).total_seconds()
        if request.time is not None and before.time is not None
        else None
    )
    if readable is None:
        return plain(None, gap)
    sent = request.tokens.total_input
    could = min(readable, sent) if sent is not None else readable
    if could - read < step_tokens(provider_of(request)):
        return plain(readable, gap)
    cause = _explain(request, before, gap, readable, thread, finding, verdict)
    # A cause taken from the provider's verdict is no second opinion on it.
    independent = verdict is not None and cause.basis != "provider"
    agrees = agreement(verdict, cause.kind) if independent and verdict is not None else None
    return Step(request, before_index, gap, readable, could - read, cause, verdict, agrees, finding)
