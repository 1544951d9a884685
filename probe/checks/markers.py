"""The cache-markers check: whether the harness declares caching the way its provider needs.

Anthropic caches only at `cache_control` breakpoints: every request of the loop marks at least
one, no more than the API takes, and the marks on the tools and the system prompt stay where
they were. OpenAI needs no declaration, but a `prompt_cache_key`, where one is sent, routes the
cache: it stays the same through the session, across its processes. Gemini and llama.cpp cache
without any declaration, so there is nothing to judge.
"""

from __future__ import annotations

from typing import Any

from ctxconf.cache import CacheRequest, audit
from ctxconf.shapes import provider_for

from ..harness import ProbeRun, SessionRun
from ..usage_figures import played_requests
from .model import CheckDef, CheckResult, Sent, _result

# The diagnosis' kinds that say the marks, not the bytes, kept the cache from reading.
MARK_KINDS = frozenset({"breakpoint-missing", "breakpoint-moved"})
SHOWN = 60


def _loop(session: SessionRun, sent: list[Sent]) -> list[tuple[dict[str, Any], CacheRequest]]:
    """The loop's requests as the cache read them, and the requests the provider refused."""
    numbers = {s.n for s in sent}
    return [
        (entry, request)
        for entry, request in played_requests(session)
        if entry["n"] in numbers or entry.get("kind") == "api-error"
    ]


def _prefix_marks(request: CacheRequest) -> tuple[tuple[str, str], ...]:
    return tuple(
        (u.path, u.ttl) for u in request.units if u.ttl and u.section in ("tools", "system")
    )


def _marks(request: CacheRequest) -> int:
    return sum(1 for u in request.units if u.ttl) + (1 if request.settings.auto_ttl else 0)


def _anthropic(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    counts: list[int] = []
    for session, sent in zip(run.sessions, sessions, strict=False):
        loop = _loop(session, sent)
        for entry, _ in loop:
            if entry.get("kind") == "api-error":
                why = entry.get("refused") or "refused by the API"
                return _result(check, "fail", f"request {entry['n']} was refused: {why}")
        requests = [r for _, r in loop]
        counts += [_marks(r) for r in requests]
        bare = [e["n"] for (e, r) in loop if _marks(r) == 0]
        if loop and len(bare) == len(loop):
            return _result(
                check,
                "fail",
                f"none of {len(loop)} requests marks a cache_control breakpoint: "
                "Anthropic caches nothing",
                breakpoints=counts,
            )
        if bare and len(bare) < len(loop):
            return _result(
                check, "fail", f"request {bare[0]} marks no breakpoint", unmarked=bare[:20]
            )
        for (entry, request), (_, before) in zip(loop[1:], loop, strict=False):
            if _marks(request) and _prefix_marks(request) != _prefix_marks(before):
                moved = ", ".join(p for p, _ in _prefix_marks(request)) or "none"
                was = ", ".join(p for p, _ in _prefix_marks(before)) or "none"
                return _result(
                    check,
                    "fail",
                    f"request {entry['n']} moved the marks on its tools and system prompt "
                    f"(from {was} to {moved})",
                )
        result = audit("anthropic", requests)
        for (entry, _), diagnosis in zip(loop, result.diagnoses, strict=True):
            for cause in diagnosis.causes if diagnosis else ():
                if cause.kind in MARK_KINDS:
                    return _result(
                        check, "fail", f"request {entry['n']}: {cause.detail}", kind=cause.kind
                    )
    if not counts:
        return _result(check, "error", "no request of the loop was played by the mock's cache")
    low, high = min(counts), max(counts)
    many = str(low) if low == high else f"{low} to {high}"
    return _result(
        check,
        "pass",
        f"every request marks {many} of at most 4 breakpoints, "
        "those on the tools and the system prompt in place",
        breakpoints=counts,
    )


def _openai(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    per_session = [
        [(e["n"], r.params.get("prompt_cache_key")) for e, r in _loop(session, sent)]
        for session, sent in zip(run.sessions, sessions, strict=False)
    ]
    if all(key is None for keys in per_session for _, key in keys):
        return _result(
            check,
            "not-testable",
            "no request sends a prompt_cache_key: OpenAI caches by prefix without one",
        )
    for keys in per_session:
        first = keys[0][1] if keys else None
        changed = next(((n, key) for n, key in keys if key != first), None)
        if changed is not None:
            n, other = changed
            return _result(
                check,
                "fail",
                f"request {n} sent prompt_cache_key {str(other)[:SHOWN]} after "
                f"{str(first)[:SHOWN]}: another key routes to another cache",
                keys=sorted({str(key)[:SHOWN] for _, key in keys}),
            )
    requests = sum(len(keys) for keys in per_session)
    return _result(
        check, "pass", f"one prompt_cache_key through each session ({requests} requests)"
    )


def cache_markers(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    provider = provider_for(run.profile.api, run.provider)
    if provider == "anthropic":
        return _anthropic(check, run, sessions)
    if provider == "openai":
        return _openai(check, run, sessions)
    return _result(
        check, "not-testable", f"{provider} caches without any declaration in the request"
    )


__all__ = ["cache_markers"]
