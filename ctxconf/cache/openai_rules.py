"""OpenAI's prompt cache (Chat Completions and Responses), as its prompt-caching guides (2024,
2025, GPT-5.6), its API reference and Azure's page state it, in its two modes.

Implicit (models before GPT-5.6): a prompt of at least 1,024 tokens is matched against every
prompt still held on the machine its request is routed to, and the longest shared prefix is read
in 128-token steps (1,024, 1,152, …). `prompt_cache_key` routes the request: a changed key
finds another machine. (The route's hash of the first 256 tokens is left out: two prompts that
share 1,024 tokens share those too.) No write is reported. A prompt is held 5 minutes after
its last use (24 hours with `prompt_cache_retention: "24h"`). The guides' cap of an hour is not
simulated apart: a request that reads stores its own prompt, which holds the same prefix
afresh, so no count depends on it.

Breakpoints (GPT-5.6 and later, or any request with `prompt_cache_options`): entries are the
prefixes ending at breakpoints, the explicit `prompt_cache_breakpoint` marks and, in `implicit`
mode, the last block of the latest user or tool message; a read is the longest of the latest 50
live entries that this request contains exactly, with no fallback to a shorter prefix and no
rounding. At most 4 are written per request (the implicit one and the latest 3 explicit), each
of at least 1,024 tokens and longer than what was read; they live 30 minutes, refreshed by a
read, and are billed as `cache_write_tokens` (the longest written less the read).

Choices where those leave a point open: the 128-token steps hold for every implicit-mode model
(only Azure's page still states them); 5 minutes of idleness, the short end of "5 to 10 minutes",
and a read refreshes it; the latest 50 breakpoints are searched (the pages say 50 or 80);
`cache_write_tokens` is the longest write less the read; 30 minutes exactly; reasoning effort,
thinking and `tool_choice` fork nothing (the guides name only the prompt's parts); tools come
before the instructions. The overflow of more than about 15 requests a minute to other machines
is not simulated: the mock answers in milliseconds, so a harness's request rate against it is not
its rate against OpenAI.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from .held_prompts import HeldPrompt, HeldPrompts
from .outcome import Expiry, Figures, Outcome, Shortfall
from .prefix import best_earlier, longest
from .provider import Provider, Scope
from .reasoning import provider_reads
from .request import CacheRequest, request_name

MINIMUM = 1024
STEP = 128
IDLE_SECONDS = 300.0
RETAINED_SECONDS = 24 * 3600.0
BREAKPOINT_SECONDS = 1800.0
SEARCHED = 50
MAX_WRITES = 4
FIRST_BREAKPOINT_MODEL = (5, 6)
FORKS: dict[str, Scope] = {"model": "all", "prompt_cache_key": "all"}


def generation(model: str) -> tuple[int, int] | None:
    """(major, minor) of a `gpt-N.M…` model id, None for any other."""
    found = re.search(r"gpt-(\d+)(?:\.(\d+))?", model.lower())
    return None if found is None else (int(found.group(1)), int(found.group(2) or 0))


def breakpoint_mode(request: CacheRequest) -> bool:
    version = generation(request.model)
    newer = version is not None and version >= FIRST_BREAKPOINT_MODEL
    return newer or request.settings.mode is not None


def stepped(shared_tokens: int) -> int:
    """What an implicit read of a shared prefix gives: 0 under 1,024, else 128-token steps."""
    if shared_tokens < MINIMUM:
        return 0
    return MINIMUM + STEP * ((shared_tokens - MINIMUM) // STEP)


def route(request: CacheRequest) -> tuple[str, str | None]:
    """Where a request's prompts are held: its model and its `prompt_cache_key`."""
    return request.model, request.params.get("prompt_cache_key")


def breakpoints(request: CacheRequest) -> tuple[list[int], int | None]:
    """The explicit breakpoints, and the implicit one (None in explicit mode or when the request
    has no user or tool message)."""
    units = request.units
    explicit = [i for i, u in enumerate(units) if u.breakpoint]
    if request.settings.mode == "explicit":
        return explicit, None
    latest = max(
        (u.message for u in units if u.section == "messages" and u.role in ("user", "tool")),
        default=None,
    )
    if latest is None:
        return explicit, None
    implicit = max(i for i, u in enumerate(units) if u.message == latest)
    return explicit, implicit


@dataclass
class _Entry:
    key: tuple[str, str | None]
    digest: bytes
    tokens: int
    expires: float
    written_at: float
    writer: int
    unit: str
    used_by: int
    order: int  # its place among every entry written, which breaks a tie as the list did
    at: int  # the unit its prefix ends at: a request holds it when its digest there is the same

    def held_by(self, hashes: Sequence[bytes]) -> bool:
        return self.at < len(hashes) and hashes[self.at] == self.digest


class _Session:
    def __init__(self) -> None:
        self.requests: list[CacheRequest] = []
        self.prompts: HeldPrompts[tuple[str, str | None]] = HeldPrompts()  # per route
        self.entries: list[_Entry] = []
        # Breakpoint mode's own account, kept as the prompts are (held_prompts.py). Per route,
        # the entries whose 30 minutes had not run out at `breakpoints_at` (the last breakpoint
        # request's time), in the order written, and those that had, by digest: only a live entry
        # is read (renewed), so one that ran out stays out while times move on. `recent` is the
        # earlier requests whose 30 minutes from their start had not ended by then, `seen` how
        # many were looked at.
        self.written: dict[tuple[str, str | None], list[_Entry]] = {}
        self.lapsed: dict[tuple[str, str | None], dict[bytes, list[_Entry]]] = {}
        self.recent: list[int] = []
        self.seen = 0
        self.breakpoints_at = float("-inf")
        self.outcomes: list[Outcome] = []

    def add(self, request: CacheRequest) -> Outcome:
        self.requests.append(request)
        outcome = self.play(len(self.requests) - 1)
        self.outcomes.append(outcome)
        return outcome

    def held(self, index: int) -> tuple[int, ...]:
        request = self.requests[index]
        t = request.time
        if breakpoint_mode(request):
            self._prune_breakpoints(index, t)
            return tuple(
                j
                for j in self.recent
                if j < index
                and self.requests[j].time < t < self.requests[j].time + BREAKPOINT_SECONDS
            )
        self.prompts.prune(t)
        return tuple(
            sorted(
                h.request
                for prompts in self.prompts.alive.values()
                for h in prompts
                if h.alive(t) and h.request < index
            )
        )

    def _prune_breakpoints(self, index: int, t: float) -> None:
        # Played out of order (or after a time of NaN, which orders with nothing): ask every
        # entry and every earlier request again.
        if not t >= self.breakpoints_at:
            self.written, self.lapsed = {}, {}
            for e in self.entries:
                self.written.setdefault(e.key, []).append(e)
            self.recent, self.seen = [], 0
        self.recent.extend(range(self.seen, index))
        self.seen = max(self.seen, index)
        times = [self.requests[j].time for j in self.recent]
        if any(t >= s + BREAKPOINT_SECONDS for s in times):
            self.recent = [
                j
                for j, s in zip(self.recent, times, strict=True)
                if not t >= s + BREAKPOINT_SECONDS
            ]
        # `not t >=` rather than `t <`: an end of NaN stays here, as it is never live nor gone.
        for key, entries in self.written.items():
            if any(t >= e.expires for e in entries):
                lapsed = self.lapsed.setdefault(key, {})
                for e in entries:
                    if t >= e.expires:
                        lapsed.setdefault(e.digest, []).append(e)
                self.written[key] = [e for e in entries if not t >= e.expires]
        self.breakpoints_at = t

    def _idle(self, index: int) -> float:
        retention = self.requests[index].settings.retention
        return RETAINED_SECONDS if retention == "24h" else IDLE_SECONDS

    def play(self, index: int) -> Outcome:
        request = self.requests[index]
        return (
            self.play_breakpoints(index) if breakpoint_mode(request) else self.play_implicit(index)
        )

    def play_implicit(self, index: int) -> Outcome:
        request, t = self.requests[index], self.requests[index].time
        held = self.held(index)  # which moves what ran out since the last request
        key = route(request)
        alive = [h for h in self.prompts.alive.get(key, []) if h.alive(t)]
        best = longest(self.requests, index, [h.request for h in alive])
        length = best[1].tokens if best else 0
        read = stepped(length) if request.tokens >= MINIMUM else 0
        for h in alive:
            if best and h.request == best[0] and read:
                h.last_used = t
        expired = self.expired_prompt(index, self.prompts.gone.get(key, []), length)
        self.prompts.add(key, HeldPrompt(index, t, t, self._idle(index)))
        shortfall = None
        # Under the minimum because the bytes diverged early is the divergence's doing.
        if best and 0 < length < MINIMUM and (best[1].full or request.tokens < MINIMUM):
            detail = f"the shared prefix is {length} tokens; OpenAI caches from {MINIMUM}"
            shortfall = Shortfall("below-minimum", detail, None, length)
        elif read and length > read:
            detail = (
                f"OpenAI reads in steps of {STEP} tokens from {MINIMUM}: {length - read} of the "
                f"{length} shared tokens fall past the last step"
            )
            shortfall = Shortfall("rounding", detail, None, length)
        read_from = best[0] if best and read else None
        return Outcome(Figures(request.tokens, read, 0), None, held, shortfall, read_from, expired)

    def expired_prompt(self, index: int, gone: list[HeldPrompt], read: int) -> Expiry | None:
        """The held prompt sharing the most with this request past what it read, among those
        whose idle time ran out (`gone`, in the order they were sent)."""
        t = self.requests[index].time
        dead = [h for h in gone if h.written < t]
        best = longest(self.requests, index, [h.request for h in dead], above=read)
        if best is None:
            return None
        ended = next(h for h in dead if h.request == best[0])
        lifetime = self._idle(ended.request)
        return Expiry(ended.request, None, lifetime, t - ended.last_used, best[1].tokens)

    def play_breakpoints(self, index: int) -> Outcome:
        request, t = self.requests[index], self.requests[index].time
        held = self.held(index)  # which moves what ran out since the last request
        key = route(request)
        # The request's own digests and tokens, made once per request (`chain` and
        # `cumulative_tokens` of its units, unsalted).
        hashes, cum = request.unit_digests, request.unit_tokens_through
        live = [e for e in self.written.get(key, []) if e.written_at < t < e.expires]
        searched = live[-SEARCHED:]
        hits = [e for e in searched if e.held_by(hashes)]
        read = max((e.tokens for e in hits), default=0)
        read_from = None
        for e in hits:
            if e.tokens == read:
                e.expires, e.used_by, read_from = t + BREAKPOINT_SECONDS, index, e.writer
        # Only an entry longer than the read is reported, so only the prefixes past it are
        # looked up.
        lapsed = self.lapsed.get(key, {})
        gone: list[_Entry] = []
        for i in range(len(hashes) - 1, -1, -1):
            if cum[i] <= read:  # tokens only add up: every shorter prefix is no longer
                break
            gone += [e for e in lapsed.get(hashes[i], []) if e.written_at < t and e.expires <= t]
        # The longest, the first written of those as long.
        longest_gone = max(gone, key=lambda e: (e.tokens, -e.order), default=None)
        expired = None
        if longest_gone is not None and longest_gone.tokens > read:
            idle = t - (longest_gone.expires - BREAKPOINT_SECONDS)
            expired = Expiry(
                longest_gone.used_by,
                longest_gone.unit,
                BREAKPOINT_SECONDS,
                idle,
                longest_gone.tokens,
            )
        explicit, implicit = breakpoints(request)
        explicit = [i for i in explicit if i != implicit]
        worth = [i for i in explicit if cum[i] >= MINIMUM and cum[i] > read]
        chosen = worth[::-1][: MAX_WRITES - 1 if implicit is not None else MAX_WRITES]
        if implicit is not None and cum[implicit] >= MINIMUM and cum[implicit] > read:
            chosen.append(implicit)
        for i in chosen:
            path = request.units[i].path
            expires = t + BREAKPOINT_SECONDS
            entry = _Entry(
                key, hashes[i], cum[i], expires, t, index, path, index, len(self.entries), i
            )
            self.entries.append(entry)
            self.written.setdefault(key, []).append(entry)
        write = max((cum[i] for i in chosen), default=read) - read
        marks = explicit if implicit is None else [*explicit, implicit]
        shortfall = self.breakpoint_shortfall(index, held, read, marks, live)
        figures = Figures(request.tokens, read, write)
        return Outcome(figures, None, held, shortfall, read_from, expired)

    def breakpoint_shortfall(
        self,
        index: int,
        held: tuple[int, ...],
        read: int,
        marks: list[int],
        live: list[_Entry],
    ) -> Shortfall | None:
        request = self.requests[index]
        key = route(request)
        same = [j for j in held if route(self.requests[j]) == key]
        best = best_earlier(self.requests, index, same)
        if best is None or best[1].unit_tokens <= read:
            return None
        reach, count = best[1].unit_tokens, best[1].units
        last_shared = request.units[count - 1].path
        if not marks:
            detail = (
                "prompt_cache_options.mode is explicit and no block is marked: nothing is read"
                if request.settings.mode == "explicit"
                else "no block is marked and no user or tool message takes the implicit one"
            )
            return Shortfall("breakpoint-missing", detail, last_shared, reach)
        if reach < MINIMUM:
            if not (best[1].full or request.tokens < MINIMUM):
                return None
            detail = f"the shared prefix is {reach} tokens; OpenAI caches from {MINIMUM}"
            return Shortfall("below-minimum", detail, last_shared, reach)
        older = [e for e in live[:-SEARCHED] if e.held_by(request.unit_digests) and e.tokens > read]
        if older:
            tokens = older[-1].tokens
            writer = request_name(self.requests, older[-1].writer)
            detail = (
                f"{writer} wrote an entry of {tokens} tokens with its mark at {older[-1].unit} "
                f"that matches, but it is not among the latest {SEARCHED}"
            )
            return Shortfall("breakpoint-moved", detail, last_shared, tokens)
        detail = (
            f"no earlier breakpoint ends in the {reach - read} shared tokens after the {read} "
            "read, and a breakpoint matches only exactly"
        )
        return Shortfall("breakpoint-missing", detail, last_shared, reach)


PROVIDER = Provider(
    name="openai",
    description="OpenAI: automatic from 1,024 tokens in 128-token steps; breakpoints from GPT-5.6",
    forks=FORKS,
    player=_Session,
    reads=partial(provider_reads, "openai"),
)

__all__ = [
    "FORKS",
    "MINIMUM",
    "PROVIDER",
    "STEP",
    "breakpoint_mode",
    "breakpoints",
    "generation",
    "route",
    "stepped",
]
