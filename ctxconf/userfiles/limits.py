"""The named limits on what ctxconf reads from outside, and a JSON parser that keeps to them.

Everything an implementation answers, every request `serve` receives and every file a user hands
over is untrusted: it may nest without end, carry an integer of a million digits, or spell a
number JSON has no word for. `parse_json` turns each of those into one `LimitError` with a short
reason, instead of a `RecursionError` or a `ValueError` from deep inside the standard library.
Spec files additionally go through the spec reader, which gives the place (line:column, pointer).
"""

from __future__ import annotations

import json
import math
import re
import secrets
from decimal import Decimal
from typing import Any

MAX_JSON_DEPTH = 256  # arrays and objects inside each other; the spec's deepest is under 10
MAX_INTEGER_DIGITS = 1000  # an integer literal's digits; Python's own limit is 4,300
MAX_SPEC_FILE_BYTES = 64 * 1024 * 1024  # a spec, case, YAML or results file read whole
MAX_YAML_ALIASES = 1000  # alias uses in one YAML document (an alias bomb multiplies them)


class LimitError(ValueError):
    """Input that breaks one of the limits above, or is not JSON a peer implementation could
    read the same way (NaN, Infinity, a number too large for a double)."""


def _int(literal: str) -> int:
    digits = len(literal.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise LimitError(f"an integer of {digits:,} digits (at most {MAX_INTEGER_DIGITS:,})")
    return int(literal)


def _float(literal: str) -> float:
    if len(literal) > MAX_INTEGER_DIGITS:
        raise LimitError(f"a number of {len(literal):,} characters")
    value = float(literal)
    if math.isinf(value):
        raise LimitError(f"the number {literal[:40]} is too large to be a finite number")
    return value


class ExactNumber(Decimal):
    """A JSON number with a fraction or an exponent, kept as the exact decimal its text writes
    (a double would round `12345678901234567890.0`), and written back as that same text."""

    text: str

    def __new__(cls, literal: str) -> ExactNumber:
        number = super().__new__(cls, literal)
        number.text = literal
        return number

    def __str__(self) -> str:
        return self.text


def _exact(literal: str) -> ExactNumber:
    _float(literal)  # the same limits: a number a double cannot hold finitely is refused
    return ExactNumber(literal)


# The number hooks, for other decoders that keep to the same limits (the spec reader's scan).
parse_int = _int
parse_float = _float
# Spec files: numbers by the exact decimal value their text writes.
parse_exact_float = _exact


def _constant(name: str) -> Any:
    raise LimitError(f"{name} is not JSON (JSON has no NaN or Infinity)")


_DECODER = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=_constant)
_EXACT_DECODER = json.JSONDecoder(parse_int=_int, parse_float=_exact, parse_constant=_constant)


def depth(value: object) -> int:
    """How deeply arrays and objects nest in `value` (0 for a scalar), without recursion."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        level += 1
        if level > deepest:
            deepest = level
            if deepest > MAX_JSON_DEPTH:
                return deepest
        stack.extend((child, level) for child in children)
    return deepest


def check_depth(value: object) -> None:
    if depth(value) > MAX_JSON_DEPTH:
        raise LimitError(f"arrays and objects nest deeper than {MAX_JSON_DEPTH} levels")


def parse_json(text: str | bytes, *, exact: bool = False) -> Any:
    """`json.loads` within the limits: LimitError for what breaks one of them,
    json.JSONDecodeError (a ValueError too) for what is not JSON. `exact`: a number with a
    fraction or an exponent is an `ExactNumber`, not a double."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    try:
        value = (_EXACT_DECODER if exact else _DECODER).decode(text)
    except RecursionError:
        raise LimitError(f"arrays and objects nest deeper than {MAX_JSON_DEPTH} levels") from None
    check_depth(value)
    return value


def dumps_checked(value: object) -> str:
    """`json.dumps` of a value made in this process (a `python:` implementation's answer):
    LimitError where it nests too deeply, ValueError/TypeError where JSON cannot carry it."""
    check_depth(value)
    try:
        return json.dumps(value, allow_nan=False)
    except RecursionError:
        raise LimitError(f"arrays and objects nest deeper than {MAX_JSON_DEPTH} levels") from None


def dumps(value: object, **options: Any) -> str:
    """`json.dumps(value, **options)` that writes a `Decimal` as its text (an `ExactNumber` as
    the text it was read from), which the standard library cannot: each is written as a quoted
    placeholder first, which no string of `value` can hold, then replaced by its digits."""
    numbers: list[str] = []
    marker = "exact-number-" + secrets.token_hex(16) + "-"

    def number(item: object) -> str:
        if isinstance(item, Decimal) and item.is_finite():
            numbers.append(str(item))
            return f"{marker}{len(numbers) - 1}"
        raise TypeError(f"Object of type {type(item).__name__} is not JSON serializable")

    text = json.dumps(value, default=number, **options)
    if not numbers:
        return text
    return re.sub(rf'"{marker}(\d+)"', lambda match: numbers[int(match.group(1))], text)
