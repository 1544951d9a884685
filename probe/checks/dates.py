"""A date of the run in the forms harnesses write it, found in any text.

ISO (`2026-12-01`, `2026/12/01`, with a time of day and microseconds after it), US and European
orders (`12/1/2026`, `01.12.2026`, `12/01/26`), month names long and short with or without a
weekday or an ordinal (`Tuesday, December 01, 2026`, `Dec 1st 2026`, `1 December 2026`), C's
`ctime()` (`Tue Dec  1 18:32:50 2026`), JavaScript's `Date.toString()` (`Tue Dec 01 2026
18:32:50 GMT+0000`) and RFC 2822 (`Tue, 01 Dec 2026 18:32:50 +0000`). A pattern is made for
one day, so a number that only looks like a date of another day is never taken for it.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from datetime import date
from functools import cache

# A time of day between a month's day and its year, as ctime() writes it.
_TIME = r"\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"


def _month_names(month: int) -> str:
    long, short = calendar.month_name[month], calendar.month_abbr[month]
    names = [re.escape(long), re.escape(short) + r"\.?"]
    if month == 9:
        names.append(r"Sept\.?")
    return "(?:" + "|".join(names) + ")"


@cache
def date_pattern(day: date) -> re.Pattern[str]:
    """One pattern for every written form of `day`."""
    y, m, d = day.year, day.month, day.day
    month = _month_names(m)
    nm, nd = f"0?{m}", f"0?{d}"
    yy = f"{y % 100:02d}"
    ordinal = rf"{nd}(?:st|nd|rd|th)?"
    forms = [
        rf"{y}(?P<iso>[-/.]){nm}(?P=iso){nd}",  # ISO and its slashed and dotted kin
        rf"{nm}(?P<us>[-/]){nd}(?P=us){y}",  # US
        rf"{nd}(?P<eu>[-/.]){nm}(?P=eu){y}",  # European
        rf"{nm}/{nd}/{yy}|{nd}/{nm}/{yy}",  # a two-digit year (C's %x), slashes only
        rf"{month}\s+{ordinal},?\s+(?:{_TIME}\s+)?{y}",  # December 1, 2026; ctime; JavaScript
        rf"{ordinal}(?:\s+of)?\s+{month},?\s+{y}",  # 1 December 2026; RFC 2822
    ]
    body = "|".join(f"(?:{form})" for form in forms)
    return re.compile(rf"(?<![\w.])(?:{body})(?!\d)", re.IGNORECASE)


def find_date(text: str, days: Iterable[date]) -> str | None:
    """The first date among `days` written in `text`, as written; None if there is none."""
    found: list[tuple[int, str]] = []
    for day in days:
        match = date_pattern(day).search(text)
        if match:
            found.append((match.start(), match.group(0)))
    return min(found)[1] if found else None


__all__ = ["date_pattern", "find_date"]
