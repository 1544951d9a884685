"""Figures as the console and the page write them: N/A where there is no figure, never $0 or
0 %."""

from __future__ import annotations


def dollars(value: float | None) -> str:
    if value is None:
        return "N/A"
    return f"${value:,.2f}" if abs(value) >= 1 else f"${value:,.4f}"


def rate(value: float | None) -> str:
    return "N/A" if value is None else f"{value:.1%}"
