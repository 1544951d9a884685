"""What the areas' Hypothesis strategies share: weighted coins and choices that shrink towards the
plainest session, and the ops a fuzz run keeps. Imported only when fuzzing: the embeddable
reference never needs Hypothesis."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any, TypeVar

from hypothesis import strategies as st

from .texts import Texts

T = TypeVar("T")
Draw = st.DrawFn
Case = dict[str, Any]

_PERCENT = st.integers(0, 99)


def maybe(draw: Draw, percent: int) -> bool:
    """True `percent` times in a hundred; shrinks to False."""
    return bool(draw(_PERCENT) >= 100 - percent)


def optional(draw: Draw, strategy: st.SearchStrategy[T], percent: int) -> T | None:
    """A value `percent` times in a hundred, else None. The value is drawn either way, before
    the coin, so that shrinking can drop it by flipping the coin alone."""
    value = draw(strategy)
    return value if maybe(draw, percent) else None


def choice(draw: Draw, options: Sequence[T], weights: Sequence[int]) -> T:
    """One of `options`, by weight; shrinks to the first."""
    ticket = draw(st.integers(0, sum(weights) - 1))
    for option, weight in zip(options, weights, strict=True):
        if ticket < weight:
            return option
        ticket -= weight
    raise AssertionError("unreachable")


def only_ops(
    every: Sequence[str], weights: Sequence[int], ops: Collection[str] | None
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The ops among `every` that `ops` names (all of them for None), with their weights.

    Raises ValueError naming an op that is not among `every`, or when none is left.
    """
    if ops is None:
        return tuple(every), tuple(weights)
    unknown = sorted(set(ops) - set(every))
    if unknown:
        raise ValueError(f"no op {', '.join(unknown)}; the ops are {', '.join(every)}")
    kept = [(op, weight) for op, weight in zip(every, weights, strict=True) if op in ops]
    if not kept:
        raise ValueError("no op left to generate")
    return tuple(op for op, _ in kept), tuple(weight for _, weight in kept)


def template_pattern(texts: Texts, name: str) -> re.Pattern[str]:
    """A regular expression matching any text the template `name` renders."""
    marker = "\x00"
    rendered = texts.render(name, **{p: marker for p in texts.placeholders(name)})
    return re.compile(".*?".join(re.escape(part) for part in rendered.split(marker)), re.DOTALL)
