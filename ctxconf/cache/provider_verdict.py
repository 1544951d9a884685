"""The provider's own word on a request's cache, where its answer carried one: Anthropic's
`diagnostics.cache_miss_reason` and OpenAI Responses' `prompt_cache_diagnostics`. Each compares
the request with an earlier one and names the earliest divergence, coarsely (no byte, no rule)
and never an expired entry or an eviction; ctxconf's cause is held against it, by the audit of
users' records and by the probe beside the diagnostics its mock gave
(`provider_diagnostics.py`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# A provider's reason and the cause kinds of ours that say the same thing. A kind of ours is
# matched by its name or, ending in "-", by its start.
_SAME: dict[str, tuple[str, ...]] = {
    "model_changed": ("model", "model-changed"),
    "system_changed": ("system-", "prefix-changed"),
    "tools_changed": ("tools-", "tool-", "prefix-changed"),
    "messages_changed": ("message-", "history-rewritten", "compaction"),
    "input_changed": ("system-", "message-", "history-rewritten", "prefix-changed"),
    "context_compacted": ("compaction", "message-", "history-rewritten"),
    "prompt_cache_key_changed": ("parameter",),
    "service_tier_changed": ("parameter",),
    "text_format_changed": ("parameter",),
    "reasoning_effort_changed": ("parameter",),
    "verbosity_changed": ("parameter",),
}
# Reasons that say nothing changed: the request matched, so a low read was the entry's end or
# the provider's own miss.
_NOTHING_CHANGED = frozenset({"no-change", "cache_hit"})
# Kinds of ours that say the request itself changed nothing.
_NOT_A_CHANGE = frozenset(
    {"expired", "provider-side", "rounding", "below-minimum", "reasoning-dropped"}
)
# Reasons that are no verdict at all.
INCONCLUSIVE = frozenset(
    {"pending", "previous_message_not_found", "comparison_response_not_found", "unavailable"}
)


@dataclass(frozen=True)
class ProviderVerdict:
    """`reason` is the provider's type (`system_changed`, `cache_miss:input_changed` is written
    `input_changed`), `no-change` for an answer that found no divergence, `pending` for a
    comparison still running; `missed` the tokens the provider says the change cost."""

    provider: str
    reason: str
    missed: int | None = None

    @property
    def conclusive(self) -> bool:
        return self.reason not in INCONCLUSIVE

    @property
    def says_changed(self) -> bool:
        return self.conclusive and self.reason not in _NOTHING_CHANGED

    def describe(self) -> str:
        tokens = f", {self.missed:,} tokens" if self.missed is not None else ""
        return f"{self.provider}: {self.reason}{tokens}"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def read_verdict(diagnostics: Mapping[str, Any] | None) -> ProviderVerdict | None:
    """The verdict in a diagnostics object as an answer (or a record of it) holds it; None where
    there is none to read."""
    if not isinstance(diagnostics, Mapping):
        return None
    if "cache_miss_reason" in diagnostics:  # Anthropic's
        reason = diagnostics["cache_miss_reason"]
        if reason is None:
            return ProviderVerdict("anthropic", "pending")
        if isinstance(reason, Mapping) and isinstance(reason.get("type"), str):
            missed = _int(reason.get("cache_missed_input_tokens"))
            return ProviderVerdict("anthropic", reason["type"], missed)
        return None
    kind = diagnostics.get("type")
    if kind == "cache_miss" and isinstance(diagnostics.get("reason"), str):  # OpenAI's
        return ProviderVerdict(
            "openai", diagnostics["reason"], _int(diagnostics.get("cache_missed_tokens"))
        )
    if isinstance(kind, str) and kind in ("cache_hit", "comparison_response_not_found"):
        return ProviderVerdict("openai", kind)
    if kind == "unavailable":
        return ProviderVerdict("openai", kind)
    return None


def no_change(provider: str) -> ProviderVerdict:
    """Anthropic's `diagnostics: null` on a request that asked: no divergence found."""
    return ProviderVerdict(provider, "no-change")


# Kinds of ours that say the request itself changed, by name or, ending in "-", by start.
_CHANGES = ("model", "parameter", "system-", "tools-", "tool-", "message-")


def changed_kind(kinds: Sequence[str]) -> str | None:
    """The first of a diagnosis's cause kinds that says the request changed, the one a provider's
    verdict speaks of (its marks, a lifetime or a rounding are no change); None: none did."""
    return next((k for k in kinds if _matches(k, _CHANGES)), None)


def verdict_words(verdict: ProviderVerdict, kind: str | None) -> str:
    """The provider's verdict beside a cause kind of ours (None: nothing changed), in words:
    "the provider says tools_changed — agrees", "… — disagrees: ctxconf finds …"."""
    said = "nothing changed" if verdict.reason == "no-change" else verdict.reason
    if verdict.missed is not None:
        said += f" ({verdict.missed:,} tokens by its estimate)"
    agrees = agreement(verdict, kind)
    if agrees is None:
        return f"the provider says {said} — no verdict to hold ctxconf's cause against"
    if agrees:
        return f"the provider says {said} — agrees"
    ours = "no change that cost a read" if kind is None else kind
    return f"the provider says {said} — disagrees: ctxconf finds {ours}"


def _matches(kind: str, patterns: tuple[str, ...]) -> bool:
    return any(kind.startswith(p) if p.endswith("-") else kind == p for p in patterns)


def agreement(verdict: ProviderVerdict, kind: str | None) -> bool | None:
    """Whether the provider's verdict and a cause kind of ours (None: no cause, nothing changed)
    say the same; None where the verdict is no verdict."""
    if not verdict.conclusive:
        return None
    if not verdict.says_changed:
        return kind is None or kind in _NOT_A_CHANGE
    if kind is None or kind in _NOT_A_CHANGE:
        return False
    return _matches(kind, _SAME.get(verdict.reason, ()))


__all__ = [
    "INCONCLUSIVE",
    "ProviderVerdict",
    "agreement",
    "changed_kind",
    "no_change",
    "read_verdict",
    "verdict_words",
]
