"""Gemini's implicit cache, as Google's caching page and its 2025 launch post state it: on by
default from Gemini 2.5, a request reads the longest prefix it shares with a prompt of its
model still held, once that prefix reaches the model's minimum. No write is reported.

Choices where those leave a point open: the minimums of the latest pages read (2026-07/10:
2.5 Flash and Pro 2,048; 3.1 Pro and 3.5 Flash and later 4,096), the early-2026 page for the 3
previews (3 Flash 1,024, 3 Pro 4,096), and 4,096 for a model of 2.5 or later none of them names;
a model before 2.5 (or an id that is not `gemini-N.M…`) caches nothing implicitly; the minimum
is tested on the shared prefix, since no shorter entry is ever made; the system instruction and
the tools are part of the prefix, before the contents; a prompt is held 5 minutes after its
last use (the TTL is unpublished: "a few minutes"). Explicit `cachedContents` are not
simulated: the mock does not serve their endpoint.
"""

from __future__ import annotations

import re

from .held_prompts import HeldPrompt, HeldPrompts
from .outcome import Expiry, Figures, Outcome, Shortfall
from .prefix import longest
from .provider import Provider, Scope
from .request import CacheRequest

IDLE_SECONDS = 300.0
FIRST_IMPLICIT = (2, 5)
UNNAMED_MINIMUM = 4096
# (major, minor, family) → minimum; a family of None stands for any.
MINIMUMS: tuple[tuple[tuple[int, int], str | None, int], ...] = (
    ((2, 5), None, 2048),
    ((3, 0), "flash", 1024),
    ((3, 0), "pro", 4096),
    ((3, 1), "pro", 4096),
)
FORKS: dict[str, Scope] = {"model": "all"}


def minimum_tokens(model: str) -> int | None:
    """The model's minimum for implicit caching; None for a model that has none."""
    found = re.search(r"gemini-(\d+)(?:\.(\d+))?-?([a-z]+)?", model.lower())
    if found is None:
        return None
    version = (int(found.group(1)), int(found.group(2) or 0))
    family = found.group(3)
    if version < FIRST_IMPLICIT:
        return None
    for known, wanted, tokens in MINIMUMS:
        if known == version and wanted in (None, family):
            return tokens
    return UNNAMED_MINIMUM


class _Session:
    def __init__(self) -> None:
        self.requests: list[CacheRequest] = []
        self.prompts: HeldPrompts[str] = HeldPrompts()  # per model

    def add(self, request: CacheRequest) -> Outcome:
        self.requests.append(request)
        return self.play(len(self.requests) - 1)

    def play(self, index: int) -> Outcome:
        request = self.requests[index]
        t = request.time
        self.prompts.prune(t)
        alive = {
            model: [h for h in prompts if h.alive(t)]
            for model, prompts in self.prompts.alive.items()
        }
        held = tuple(sorted(h.request for prompts in alive.values() for h in prompts))
        same = alive.get(request.model, [])
        best = longest(self.requests, index, [h.request for h in same])
        length = best[1].tokens if best else 0
        minimum = minimum_tokens(request.model)
        read = length if minimum is not None and length >= minimum else 0
        for h in same:
            if best and h.request == best[0] and read:
                h.last_used = t
        expired = self.expired(index, self.prompts.gone.get(request.model, []), length)
        self.prompts.add(request.model, HeldPrompt(index, t, t, IDLE_SECONDS))
        shortfall = None
        if best and length and minimum is None:
            detail = (
                f"{request.model or 'this model'} has no implicit caching (Gemini 2.5 and later)"
            )
            shortfall = Shortfall("no-caching", detail, None, length)
        elif best and minimum and 0 < length < minimum:
            if best[1].full or request.tokens < minimum:
                detail = (
                    f"the shared prefix is {length} tokens; {request.model} caches from {minimum}"
                )
                shortfall = Shortfall("below-minimum", detail, None, length)
        read_from = best[0] if best and read else None
        return Outcome(Figures(request.tokens, read, 0), None, held, shortfall, read_from, expired)

    def expired(self, index: int, gone: list[HeldPrompt], read: int) -> Expiry | None:
        """The prompt of its model sharing the most with this request past what it read, among
        those whose idle time ran out (`gone`, its model's, in the order they were sent)."""
        t = self.requests[index].time
        dead = [h for h in gone if h.written < t]
        best = longest(self.requests, index, [h.request for h in dead], above=read)
        if best is None:
            return None
        ended = next(h for h in dead if h.request == best[0])
        return Expiry(ended.request, None, IDLE_SECONDS, t - ended.last_used, best[1].tokens)


PROVIDER = Provider(
    name="gemini",
    description="Gemini: implicit caching from 2.5, by a minimum per model",
    forks=FORKS,
    player=_Session,
)

__all__ = ["FORKS", "IDLE_SECONDS", "MINIMUMS", "PROVIDER", "minimum_tokens"]
