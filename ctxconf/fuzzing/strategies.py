"""Hypothesis strategies for every area's sessions, found through the area registry.

    from hypothesis import given
    from ctxconf.fuzzing.strategies import sessions

    @given(sessions())
    def test_my_harness(case): ...   # case = {"limits"?: {...}, "steps": [...]}

Each area keeps its strategies, its shrinking and its rule guesses in its own folder
(`reference/<area>/fuzz/`); `sessions_of(area)` and `ops_of(area)` reach any of them by name.
"""

from __future__ import annotations

from collections.abc import Collection
from importlib import import_module
from types import ModuleType

from hypothesis import strategies as st

from ctxconf.reference import REGISTRY
from ctxconf.reference.context.fuzz.sessions import sessions
from ctxconf.reference.context.fuzz.texts import (
    CWD,
    FILES,
    LISTING_TOOLS,
    OPS,
    OTHER_TOOLS,
    changed,
    contents,
    default_cap,
    edit_pairs,
    identity,
    limits,
    lines,
    listing_args,
    output_texts,
    reordered,
    spellings,
)
from ctxconf.reference.fuzzing import Case, only_ops
from ctxconf.reference.prefix.fuzz.sessions import (
    PREFIX_OPS,
    prefix_sessions,
    prefix_starts,
    provider_bodies,
    provider_responses,
)


def area_fuzz(area: str) -> ModuleType:
    """The fuzz module of `area`: its OPS, sessions, smaller and guess_rules."""
    record = REGISTRY.get(area)
    if record is None or not record.fuzz_module:
        raise ValueError(f"no sessions for the area {area!r}")
    return import_module(record.fuzz_module)


def ops_of(area: str) -> tuple[str, ...]:
    """The ops the sessions of `area` are made of (a prefix session's `start` aside)."""
    ops: tuple[str, ...] = area_fuzz(area).OPS
    return ops


def sessions_of(area: str, ops: Collection[str] | None = None) -> st.SearchStrategy[Case]:
    """The sessions of `area`, with only `ops` (None: every op).

    Raises ValueError for an unknown area or op, or no op at all.
    """
    every = ops_of(area)
    only_ops(every, (1,) * len(every), ops)  # refused now rather than when drawn
    strategy: st.SearchStrategy[Case] = area_fuzz(area).sessions(ops=ops)
    return strategy


__all__ = [
    "CWD",
    "FILES",
    "LISTING_TOOLS",
    "OPS",
    "OTHER_TOOLS",
    "PREFIX_OPS",
    "area_fuzz",
    "changed",
    "contents",
    "default_cap",
    "edit_pairs",
    "identity",
    "limits",
    "lines",
    "listing_args",
    "only_ops",
    "ops_of",
    "output_texts",
    "prefix_sessions",
    "prefix_starts",
    "provider_bodies",
    "provider_responses",
    "reordered",
    "sessions",
    "sessions_of",
    "spellings",
]
