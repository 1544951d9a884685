"""A search that draws the same sessions whatever code is loaded beside it.

Hypothesis (from 6.131) biases some draws towards the literals of the "local" modules loaded at
the time: those outside site-packages. Which modules those are depends on how ctxconf was
installed (a checkout's own modules are local, an installed copy's are not), on the
implementation under test, and on whatever else the process imported (a test suite's modules).
So the same seed drew other sessions in a checkout than in an installed copy, and found a fault
after three times as many runs inside a test worker as in a fresh process. During a search,
Hypothesis sees no local constant; its own built-in ones still apply.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def own_constants_only() -> Iterator[None]:
    """Hypothesis draws with its built-in constants alone while the block runs."""
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants
    except ImportError:  # a Hypothesis from before local constants: nothing to hold still
        yield
        return
    finder = getattr(providers, "_get_local_constants", None)
    cache: Any = getattr(providers, "CONSTANTS_CACHE", None)
    if finder is None or cache is None:
        yield
        return
    none = Constants()
    providers._get_local_constants = lambda *_: none
    cache.cache.clear()  # permitted constants worked out before, local ones among them
    try:
        yield
    finally:
        providers._get_local_constants = finder
        cache.cache.clear()


__all__ = ["own_constants_only"]
