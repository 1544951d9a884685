"""llama.cpp's `llama-server` through its OpenAI-compatible endpoints, as
its README and `server-context.cpp` state it: each slot keeps the tokens of the last prompt it
processed, and a request reuses the longest common prefix with its slot's tokens, less one when
that is the whole prompt (one token must be evaluated for the logits). The slot is `id_slot`
when the request names one, else the slot whose tokens share the largest fraction of the request
above the similarity threshold (0.10), else the least recently used. `cache_prompt: false`
reuses nothing. No write is reported; nothing expires.

Choices where those leave a point open: one slot (`--parallel 1`; `slots` sets more); a slot
keeps the prompt only, not the tokens the model generated (the mock's answer is not part of the
request), so a request that resends an answer re-reads it; the model named in a request forks
nothing (a server serves the model it loaded); `--cache-reuse` and `--cache-ram` are off.
"""

from __future__ import annotations

from collections.abc import Sequence

from .outcome import Figures, Outcome
from .prefix import shared
from .provider import Provider, Scope, played
from .request import CacheRequest

SIMILARITY = 0.10
SLOTS = 1
FORKS: dict[str, Scope] = {}


def choose_slot(
    requests: Sequence[CacheRequest], index: int, slots: list[int | None], used: list[int]
) -> int:
    """The slot a request runs in: the one it names, the most similar above the threshold, or
    the least recently used (an empty one first)."""
    request = requests[index]
    named = request.settings.slot
    if named is not None and 0 <= named < len(slots):
        return named
    best, fraction = None, SIMILARITY
    for number, holder in enumerate(slots):
        if holder is None or not request.tokens:
            continue
        share = shared(requests[holder], request).tokens / request.tokens
        if share > fraction:
            best, fraction = number, share
    if best is not None:
        return best
    return min(range(len(slots)), key=lambda n: (slots[n] is not None, used[n]))


class _Session:
    """The server's slots across a session's requests."""

    def __init__(self, slots: int = SLOTS) -> None:
        self.requests: list[CacheRequest] = []
        self.holders: list[int | None] = [None] * slots
        self.used = [-1] * slots

    def add(self, request: CacheRequest) -> Outcome:
        index = len(self.requests)
        self.requests.append(request)
        held = tuple(sorted(h for h in self.holders if h is not None))
        slot = choose_slot(self.requests, index, self.holders, self.used)
        holder = self.holders[slot]
        reused = 0
        if holder is not None and request.settings.cache_prompt:
            reused = shared(self.requests[holder], request).tokens
            if reused >= request.tokens > 0:
                reused = request.tokens - 1
        self.holders[slot], self.used[slot] = index, index
        return Outcome(Figures(request.tokens, reused, 0), None, held)


def simulate(requests: Sequence[CacheRequest], slots: int = SLOTS) -> tuple[Outcome, ...]:
    """A session's requests on a server of `slots` slots (the provider's has `SLOTS`)."""
    return played(_Session(slots), requests)


PROVIDER = Provider(
    name="llamacpp",
    description="llama.cpp server: the longest common prefix with the slot's last prompt",
    forks=FORKS,
    player=_Session,
)

__all__ = ["FORKS", "PROVIDER", "SIMILARITY", "SLOTS", "choose_slot", "simulate"]
