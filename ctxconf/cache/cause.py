"""A named reason a request read less from the cache than it could have."""

from __future__ import annotations

from dataclasses import dataclass

from .bytediff import ByteDiff


@dataclass(frozen=True)
class Cause:
    """What broke the cache: its kind, the rule of the spec it breaks (None where the spec has
    no rule for it), a line saying what, and where: the unit of the later request, the byte in
    that unit's canonical bytes, and the bytes around it."""

    kind: str
    anchor: str | None
    detail: str
    unit: str | None = None
    byte: int | None = None
    diff: ByteDiff | None = None


# The kinds, each with the rule it breaks.
ANCHORS: dict[str, str | None] = {
    "system-date": "pfx.system.no-clock",
    "system-whitespace": "pfx.system.once",
    "system-text": "pfx.system.once",
    "tools-added": "pfx.tools.fixed",
    "tools-removed": "pfx.tools.fixed",
    "tools-reordered": "pfx.tools.fixed",
    "tool-description": "pfx.tools.fixed",
    "tool-schema": "pfx.tools.fixed",
    "tool-definition": "pfx.tools.fixed",
    "message-rewritten": "hist.persist.append-only",
    "message-removed": "hist.persist.append-only",
    "message-inserted": "hist.persist.append-only",
    "reasoning-stripped": "pfx.reasoning.kept",
    "reasoning-rewritten": "pfx.reasoning.kept",
    "reasoning-moved": "pfx.reasoning.anthropic",
    "reasoning-dropped": None,  # the provider drops earlier turns' reasoning by itself
    "parameter": "pfx.cache.params",
    "model": "pfx.system.switch",
    "breakpoint-missing": "pfx.cache.marks",
    "breakpoint-moved": "pfx.cache.marks",
    "breakpoint-limit": "pfx.cache.limit",
    "ttl-order": "pfx.cache.lifetimes",
    "automatic-ttl": "pfx.cache.lifetimes",
    "below-minimum": None,
    "no-caching": None,
    "rounding": None,  # the provider's steps: no harness can read past them
    "expired": None,  # the provider's lifetime: never the harness's fault
}

__all__ = ["ANCHORS", "Cause"]
