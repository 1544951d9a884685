"""What is wrong across the case files of a spec folder rather than in one of them: two files
whose names differ only by Unicode normalisation or by case (`context.json` and `contéxt.json`
spelled with a combining accent, or `Context.json`), which a file system that folds names holds
as one file and a person cannot tell apart; and one case name in two files of the same area,
which would run twice and be counted twice.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path


def _folded(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


def lookalike(names: Sequence[str]) -> tuple[str, str, str] | None:
    """The first name that another name of `names` differs from only by normalisation or case:
    (the earlier name, the look-alike, how they differ); None when there is none."""
    seen: dict[str, str] = {}
    for name in names:
        key = _folded(name)
        if key in seen:
            earlier = seen[key]
            same_form = unicodedata.normalize("NFC", earlier) == unicodedata.normalize("NFC", name)
            return earlier, name, "Unicode normalisation" if same_form else "case"
        seen[key] = name
    return None


@dataclass(frozen=True)
class RepeatedCase:
    """A case whose name an earlier case of the same area already has, in another file or the
    same one given twice."""

    path: Path
    index: int  # in its file's `cases`
    name: str
    first_path: Path
    first_index: int


def repeated_cases(files: Iterable[tuple[Path, str, Sequence[str]]]) -> Iterator[RepeatedCase]:
    """The cases (of files given as path, area, case names) whose area and name an earlier file
    holds; repeats within one file are that file's own problem and are not told here."""
    first: dict[tuple[str, str], tuple[Path, int]] = {}
    for path, area, names in files:
        own: dict[str, int] = {}
        for index, name in enumerate(names):
            own.setdefault(name, index)
        for name, index in own.items():
            earlier = first.get((area, name))
            if earlier is not None:
                yield RepeatedCase(path, index, name, *earlier)
        for name, index in own.items():
            first.setdefault((area, name), (path, index))
