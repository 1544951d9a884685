"""A loss's cause as the audit gives it: from the bytes (the probe's cause), from the provider's
own diagnostics, or inferred from the figures and the record's boundaries where neither exists;
and whose it is to mend."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ctxconf.cache import Cause

Basis = Literal["bytes", "provider", "inferred"]
# Whose a loss is: the harness's to mend; the provider's (a lifetime, an eviction, its steps);
# a boundary the person chose (a model switch, a compaction, an upgrade); or not known.
Blame = Literal["harness", "provider", "boundary", "unknown"]

# Kinds that are never the harness's, whatever found them.
PROVIDER_KINDS = frozenset(
    {"expired", "provider-side", "rounding", "below-minimum", "no-caching", "reasoning-dropped"}
)
BOUNDARY_KINDS = frozenset({"model-changed", "model", "compaction", "version-changed"})
UNKNOWN_KINDS = frozenset({"unexplained"})

# The rule each kind of the audit's own breaks (the probe's kinds carry theirs: cache.ANCHORS).
ANCHORS: dict[str, str | None] = {
    "history-rewritten": "hist.persist.append-only",
    "prefix-changed": "pfx.system.once",
    "resume": "hist.persist.cold-equals-live",
    "model-changed": "pfx.system.switch",
    "compaction": "pfx.compact.after",
    "version-changed": None,
    "expired": None,
    "provider-side": None,
    "unexplained": None,
}
# The provider's reasons, as causes of their own where no bytes were kept.
PROVIDER_REASON_ANCHORS: dict[str, str | None] = {
    "model_changed": "pfx.system.switch",
    "system_changed": "pfx.system.once",
    "tools_changed": "pfx.tools.fixed",
    "messages_changed": "hist.persist.append-only",
    "input_changed": "hist.persist.append-only",
    "context_compacted": "pfx.compact.after",
    "prompt_cache_key_changed": "pfx.cache.key",
    "service_tier_changed": "pfx.cache.params",
    "text_format_changed": "pfx.cache.params",
    "reasoning_effort_changed": "pfx.cache.params",
    "verbosity_changed": "pfx.cache.params",
}


@dataclass(frozen=True)
class AuditCause:
    kind: str
    basis: Basis
    detail: str
    anchor: str | None
    unit: str | None = None
    byte: int | None = None

    @property
    def blame(self) -> Blame:
        if self.kind in PROVIDER_KINDS:
            return "provider"
        if self.kind in BOUNDARY_KINDS or self.kind == "context_compacted":
            return "boundary"
        if self.kind in UNKNOWN_KINDS:
            return "unknown"
        return "harness"


def from_bytes(cause: Cause) -> AuditCause:
    return AuditCause(cause.kind, "bytes", cause.detail, cause.anchor, cause.unit, cause.byte)


def inferred(kind: str, detail: str) -> AuditCause:
    return AuditCause(kind, "inferred", detail, ANCHORS.get(kind))
