"""How far a cache figure may move before `--compare` calls it better or worse: a share of its
earlier value and a floor of its own (tokens lost, dollars of cost); a hit rate, itself a
per cent, by the share in points. Inside the tolerance a move is only a change."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from .errors import ProbeDataError

BETTER, WORSE, CHANGED = "better", "worse", "changed"

FORM = "PERCENT%,TOKENS,DOLLARS"


@dataclass(frozen=True)
class Tolerance:
    """A figure moved past it when it moved by more than `share` of its earlier value and by
    more than its floor; a hit rate when it moved by more than `share` in points."""

    share: Decimal = Decimal("0.05")
    tokens: int = 100
    dollars: Decimal = Decimal("0.0001")

    def said(self) -> str:
        percent = f"{(self.share * 100).normalize():f}"
        return f"{percent} %, {self.tokens:,} tokens, ${self.dollars:f}"

    def tokens_moved(self, old: int, new: int) -> str:
        return _direction(Decimal(old), Decimal(new), Decimal(self.tokens), self.share)

    def cost_moved(self, old: str, new: str) -> str:
        return _direction(Decimal(old), Decimal(new), self.dollars, self.share)

    def hit_rate_moved(self, old: float, new: float) -> str:
        """A higher hit rate is better: the direction is that of the cost of its fall."""
        moved = Decimal(str(new)) - Decimal(str(old))
        if abs(moved) <= self.share:
            return CHANGED
        return BETTER if moved > 0 else WORSE


def _direction(old: Decimal, new: Decimal, floor: Decimal, share: Decimal) -> str:
    """For a figure where more costs more: worse when it grew past both the floor and the
    share of what it was, better when it fell past both, else changed."""
    moved = abs(new - old)
    if moved <= floor or moved <= share * old:
        return CHANGED
    return WORSE if new > old else BETTER


def parse_tolerance(text: str) -> Tolerance:
    """`5%,100,0.0001`: the share, the floor in tokens, the floor in dollars ($ allowed)."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != 3:
        raise ProbeDataError(
            f"--tolerance {text!r}: give three parts, {FORM} (the default: 5%,100,0.0001)"
        )
    share_text, tokens_text, dollars_text = parts
    if not share_text.endswith("%"):
        raise ProbeDataError(f"--tolerance {text!r}: its first part is a per cent, like 5%")
    share = _number(share_text[:-1], text, "the per cent")
    tokens = _number(tokens_text, text, "the floor in tokens")
    if tokens != tokens.to_integral_value():
        raise ProbeDataError(f"--tolerance {text!r}: the floor in tokens is a whole number")
    dollars = _number(dollars_text.removeprefix("$"), text, "the floor in dollars")
    return Tolerance(share / 100, int(tokens), dollars)


def _number(part: str, text: str, what: str) -> Decimal:
    try:
        value = Decimal(part)
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or value < 0:
        raise ProbeDataError(
            f"--tolerance {text!r}: {what} is {part!r}, not a number of 0 or more ({FORM})"
        )
    return value


__all__ = ["BETTER", "CHANGED", "WORSE", "Tolerance", "parse_tolerance"]
