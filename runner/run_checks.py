"""A run refused before it starts, with what to do instead: a timeout out of range, an unknown area,
a choice of cases that holds none, an implementation that implements none of the chosen areas."""

from __future__ import annotations

import argparse
import difflib
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from .cases import Case, CaseFile
from .errors import UsageError
from .protocol import Hello
from .selection import Selector

MAX_TIMEOUT = 24 * 60 * 60.0  # seconds per case: a day is more than any case needs


def seconds_argument(text: str) -> float:
    """A timeout option's value, for argparse: a finite number above 0 and at most a day."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT):
        raise argparse.ArgumentTypeError(
            f"{text}: a number of seconds above 0 and at most {MAX_TIMEOUT:g} (a day)"
        )
    return value


def check_timeout(timeout: float, option: str = "--timeout") -> None:
    """UsageError unless `timeout` is a finite number of seconds in (0, MAX_TIMEOUT]."""
    if not (math.isfinite(timeout) and 0 < timeout <= MAX_TIMEOUT):
        raise UsageError(
            f"{option} {timeout:g}: the timeout is a number of seconds above 0 and at most "
            f"{MAX_TIMEOUT:g} (a day)"
        )


def resolve_spec_dir(given: Path | None) -> Path:
    """The spec folder a run works on, absolute: `given` (--spec), else the spec of the checkout
    the current folder is in, else the bundled one."""
    from ctxconf.specdata.folder import resolve_spec

    return resolve_spec(given).resolve()


def known_areas_of(files: Sequence[CaseFile]) -> tuple[str, ...]:
    from ctxconf.reference import AREAS

    return tuple(dict.fromkeys([*AREAS, *(f.area for f in files)]))


def _near(word: str, choices: Sequence[str]) -> str:
    """ "; did you mean X?" when one of `choices` is close to `word`, else ""."""
    close = difflib.get_close_matches(word, choices, n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def check_areas(areas: Sequence[str], known: Sequence[str]) -> None:
    for area in areas:
        if area not in known:
            raise UsageError(
                f"--area {area}: no such area (the known areas: {', '.join(known)})"
                + _near(area, known)
            )


def _vocabulary(files: Sequence[CaseFile]) -> list[str]:
    """The words -k can match: case names, rule anchors, and their parts."""
    words: set[str] = set()
    for case in (c for f in files for c in f.cases):
        for name in (case.name, *case.rules):
            words.add(name)
            words.update(part for part in re.split(r"[-.]", name) if len(part) > 2)
    return sorted(words)


def nothing_selected(
    files: Sequence[CaseFile], areas: Sequence[str], selector: Selector | None
) -> UsageError:
    total = sum(len(f.cases) for f in files)
    of = f"{total} case" if total == 1 else f"{total} cases"
    if total == 0:
        return UsageError("the case files hold no case: no case ran", hint="")
    if selector is None:
        return UsageError(
            f"--area {' --area '.join(areas)}: none of the {of} is in that area: no case ran",
            hint="",
        )
    inside = f" of the areas {', '.join(areas)}" if areas else ""
    vocabulary = _vocabulary(files)
    hints = [
        near
        for word in selector.words
        if not any(word.lower() in known.lower() for known in vocabulary)
        and (near := _near(word, vocabulary))
    ]
    return UsageError(
        f"-k {selector.expression!r} selects none of the {of}{inside}: no case ran"
        + (hints[0] if hints else ""),
        hint="a word matches part of a case name or a rule anchor (`ctxconf show` lists them)",
    )


def check_hello_areas(
    hello: Hello,
    cases: Sequence[Case],
    known: Sequence[str],
    on_warning: Callable[[str], None] | None,
) -> None:
    unknown = [area for area in hello.areas if area not in known]
    if unknown and on_warning is not None:
        names = ", ".join(repr(area) for area in unknown)
        on_warning(
            f"the implementation's hello lists {names}, which is no area "
            f"(the known areas: {', '.join(known)})"
        )
    chosen = list(dict.fromkeys(case.area for case in cases))
    if not any(area in hello.areas for area in chosen):
        listed = ", ".join(repr(area) for area in hello.areas) or "no area"
        raise UsageError(
            f"the implementation's hello lists {listed}, none of the areas of the cases chosen "
            f"({', '.join(chosen)}): no case ran",
            hint='list the areas you implement in the hello, e.g. "areas": ["context"]',
        )
