"""The providers' own prompt-cache diagnostics, as the simulators' requests give them: what
Anthropic's `diagnostics.cache_miss_reason` and OpenAI Responses' `prompt_cache_diagnostics`
would say of a request compared with the earlier one whose answer's id it names.

Both compare the fingerprints of two requests, not what the cache held: a provider keeps, per
answer id and for a short while, hashes of each part of the request, and names the earliest part
that differs. So an entry that expired, or was evicted, is never a reason: the same request
after the cache's lifetime is answered `null` (Anthropic) or `cache_hit` (OpenAI) while its
usage reads 0. The parts compared are the units every simulator plays (`request.py`), compared
with the first-difference machinery the diagnosis uses (`prefix.py`), so the reason can never
name a part the simulator's figures saw kept, nor miss one it saw changed.

- Anthropic, in the order model → system → tools → the other prompt-affecting parameters
  (`unavailable`) → messages: `model_changed`, `system_changed`, `tools_changed`,
  `messages_changed` (an earlier message altered, removed or reordered: the earlier request's
  messages are no longer the start of this one's), each with `cache_missed_input_tokens`;
  `previous_message_not_found` for an id the provider does not hold (never given, another
  session's, kept too long). Only a request that asks is compared; a fingerprint is kept only
  for one that opted in (in beta mode, one that sent the beta header).
- OpenAI, the first of model, `prompt_cache_key`, service tier, tools, text format, reasoning
  effort, verbosity, a compaction, the input: `cache_miss` with that `reason`,
  `cache_missed_tokens` and `comparison_reusable_tokens`; `cache_hit`;
  `comparison_response_not_found`; `unavailable` for a model before GPT-5.6 or a compared prompt
  under 1,024 tokens. Every response's fingerprint is kept: any recent one may be named.

Token counts are the token estimate of the units' bytes (`tokens.py`): as the providers say of
theirs, a magnitude, not a bill; a missed count is what the earlier prompt held past the first
difference, and may exceed the request's own uncached input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .openai_rules import FIRST_BREAKPOINT_MODEL, MINIMUM, generation
from .prefix import shared
from .request import CacheRequest, Section

DiagnosingProvider = Literal["anthropic", "openai"]
ANTHROPIC_BETA = "cache-diagnosis-2026-04-07"
# Anthropic: the parameters besides model, system, tools and messages that shape the prompt;
# a difference in any of them (or in the set of beta headers) is `unavailable`.
ANTHROPIC_OTHERS = (
    "tool_choice",
    "thinking",
    "context_management",
    "output_config",
    "output_format",
)
# OpenAI: the parameters in the order its reasons are classified, each with its reason.
OPENAI_PARAMS = (
    ("model", "model_changed"),
    ("prompt_cache_key", "prompt_cache_key_changed"),
    ("service_tier", "service_tier_changed"),
)
OPENAI_LATER_PARAMS = (
    ("text_format", "text_format_changed"),
    ("effort", "reasoning_effort_changed"),
    ("verbosity", "verbosity_changed"),
)
COMPACTION_KINDS = frozenset({"compaction"})
RETENTION_SECONDS = 3600.0  # "a short period": no provider gives a number


@dataclass(frozen=True)
class DiagnosticsAsk:
    """What a request asks of its provider's diagnostics: `opted_in` the body's opt-in
    (Anthropic's `diagnostics` object, OpenAI's `comparison_response_id`), `against` the answer
    id to compare with (None: no comparison, as on a first turn), `header` Anthropic's beta
    header."""

    provider: DiagnosingProvider
    opted_in: bool
    against: str | None
    header: bool = False


@dataclass(frozen=True)
class DiagnosticsOptions:
    """How the simulated provider diagnoses: Anthropic's beta mode (the header alone keeps a
    fingerprint, and the field is absent without it), every comparison still running when the
    answer went out (`{"cache_miss_reason": null}`), and how long a fingerprint is kept."""

    beta: bool = False
    pending: bool = False
    retention: float = RETENTION_SECONDS


@dataclass
class Fingerprints:
    """The fingerprints a provider keeps by answer id: each the request as the simulators read
    it, found for `retention` seconds from its time (times are the requests' own)."""

    retention: float = RETENTION_SECONDS
    kept: dict[str, CacheRequest] = field(default_factory=dict)

    def keep(self, answer_id: str, request: CacheRequest) -> None:
        self.kept[answer_id] = request

    def find(self, answer_id: str, at: float) -> CacheRequest | None:
        found = self.kept.get(answer_id)
        if found is None or at - found.time > self.retention:
            return None
        return found


def keeps(ask: DiagnosticsAsk, options: DiagnosticsOptions) -> bool:
    """Whether the provider keeps a fingerprint of the request: OpenAI of every response (any
    recent one can be named for comparison); Anthropic of one that opted in, or in its beta,
    of one that sent the header."""
    if ask.provider == "openai":
        return True
    if options.beta:
        return ask.header
    return ask.opted_in


def carries(ask: DiagnosticsAsk, options: DiagnosticsOptions) -> bool:
    """Whether the answer carries the diagnostics field at all (its value may be `null`): a
    beta-mode request needs the header and the object, so a harness sending the header alone
    gets nothing."""
    if ask.provider == "anthropic" and options.beta:
        return ask.header and ask.opted_in
    return ask.opted_in


def _section(request: CacheRequest, section: Section) -> list[bytes]:
    return [u.data for u in request.units if u.section == section]


def _extends(earlier: CacheRequest, later: CacheRequest, sections: Sequence[Section]) -> bool:
    """Whether `later` holds every unit of `earlier` in `sections`, in order, from the start."""
    before = [u.data for u in earlier.units if u.section in sections]
    after = [u.data for u in later.units if u.section in sections]
    return after[: len(before)] == before


def _betas(request: CacheRequest) -> frozenset[str]:
    return frozenset(
        beta.strip()
        for name, value in request.headers
        if name.lower() == "anthropic-beta"
        for beta in value.split(",")
        if beta.strip()
    )


def missed_tokens(earlier: CacheRequest, later: CacheRequest) -> int:
    """What the earlier prompt held past the first byte `later` changes: its cached part that
    the change kept from being read."""
    return max(earlier.tokens - shared(earlier, later).tokens, 0)


def anthropic_reason(earlier: CacheRequest | None, later: CacheRequest) -> dict[str, Any] | None:
    """Anthropic's `cache_miss_reason` for `later` compared with `earlier` (None: the id was not
    found); None where nothing that shapes the prompt differs."""
    if earlier is None:
        return {"type": "previous_message_not_found"}
    if earlier.model != later.model:
        return {"type": "model_changed", "cache_missed_input_tokens": earlier.tokens}
    changed: list[tuple[Section, str]] = [("system", "system_changed"), ("tools", "tools_changed")]
    for section, kind in changed:
        if _section(earlier, section) != _section(later, section):
            return {"type": kind, "cache_missed_input_tokens": missed_tokens(earlier, later)}
    others = any(earlier.params.get(n) != later.params.get(n) for n in ANTHROPIC_OTHERS)
    if others or _betas(earlier) != _betas(later):
        return {"type": "unavailable"}
    if not _extends(earlier, later, ("messages",)):
        tokens = missed_tokens(earlier, later)
        return {"type": "messages_changed", "cache_missed_input_tokens": tokens}
    return None


def anthropic_diagnostics(
    ask: DiagnosticsAsk,
    earlier: CacheRequest | None,
    later: CacheRequest,
    options: DiagnosticsOptions,
) -> dict[str, Any] | None:
    """The Message's `diagnostics`: None (`null`) without a comparison or without a
    divergence, `{"cache_miss_reason": null}` while pending, else the reason."""
    if ask.against is None:
        return None
    if options.pending:
        return {"cache_miss_reason": None}
    reason = anthropic_reason(earlier, later)
    return None if reason is None else {"cache_miss_reason": reason}


def openai_supports(model: str) -> bool:
    version = generation(model)
    return version is not None and version >= FIRST_BREAKPOINT_MODEL


def _openai_miss(earlier: CacheRequest, later: CacheRequest) -> tuple[str, int] | None:
    """The first reason OpenAI classifies, with the tokens still reusable; None: a hit."""
    for name, reason in OPENAI_PARAMS:
        if earlier.params.get(name) != later.params.get(name):
            return reason, 0
    reusable = shared(earlier, later).tokens
    if _section(earlier, "tools") != _section(later, "tools"):
        return "tools_changed", reusable
    for name, reason in OPENAI_LATER_PARAMS:
        if earlier.params.get(name) != later.params.get(name):
            return reason, 0  # rendered before the input: nothing of it is reusable
    if _extends(earlier, later, ("system", "messages")):
        return None
    compacted = any(u.kind in COMPACTION_KINDS for u in later.units if u.section == "messages")
    return ("context_compacted" if compacted else "input_changed"), reusable


def openai_diagnostics(earlier: CacheRequest | None, later: CacheRequest) -> dict[str, Any]:
    """The response's `prompt_cache_diagnostics` for `later` compared with `earlier` (None: the
    comparison response was not found)."""
    if not openai_supports(later.model):
        return {"type": "unavailable"}
    if earlier is None:
        return {"type": "comparison_response_not_found"}
    if earlier.tokens < MINIMUM:
        return {"type": "unavailable"}  # no reusable prefix to speak of
    miss = _openai_miss(earlier, later)
    if miss is None:
        return {"type": "cache_hit"}
    reason, reusable = miss
    return {
        "type": "cache_miss",
        "reason": reason,
        "cache_missed_tokens": max(earlier.tokens - reusable, 0),
        "comparison_reusable_tokens": reusable,
    }


def diagnostics(
    ask: DiagnosticsAsk,
    earlier: CacheRequest | None,
    later: CacheRequest,
    options: DiagnosticsOptions,
) -> dict[str, Any] | None:
    """The diagnostics field of the answer to `later`, for the provider `ask` names; the
    caller asks `carries` first."""
    if ask.provider == "anthropic":
        return anthropic_diagnostics(ask, earlier, later, options)
    if ask.against is None:
        return None
    return openai_diagnostics(earlier, later)


__all__ = [
    "ANTHROPIC_BETA",
    "ANTHROPIC_OTHERS",
    "DiagnosingProvider",
    "DiagnosticsAsk",
    "DiagnosticsOptions",
    "Fingerprints",
    "anthropic_diagnostics",
    "anthropic_reason",
    "carries",
    "diagnostics",
    "keeps",
    "missed_tokens",
    "openai_diagnostics",
    "openai_supports",
]
