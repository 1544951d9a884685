"""`-k EXPR`: choose cases by name or rule anchor, as pytest's -k does, kept small.

A word matches a case when it is a substring (ignoring case) of the case's name or of one of
its rule anchors; words combine with `not`, `and`, `or` and parentheses, in that precedence:

    -k stub                      every case with "stub" in its name or a rule
    -k 'ctx.cap and not long'    capped cases whose name and rules lack "long"
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .errors import UsageError

_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")
_KEYWORDS = {"and", "or", "not"}

Matcher = Callable[[Sequence[str]], bool]


@dataclass(frozen=True)
class Selector:
    expression: str
    _match: Matcher
    words: tuple[str, ...] = ()  # the words matched (not the keywords), for suggestions

    def matches(self, names: Sequence[str]) -> bool:
        return self._match(names)


def _word(word: str) -> Matcher:
    needle = word.lower()
    return lambda names: any(needle in name.lower() for name in names)


class _Parser:
    def __init__(self, expression: str) -> None:
        self.expression = expression
        self.tokens: list[str] = []
        position = 0
        while position < len(expression):
            match = _TOKEN.match(expression, position)
            if match is None:  # only trailing whitespace is left
                break
            self.tokens.append(match.group(1))
            position = match.end()
        self.index = 0

    def fail(self, what: str) -> UsageError:
        return UsageError(
            f"-k {self.expression!r}: {what}",
            hint="words joined by and, or, not and parentheses, e.g. -k 'stub and not range'",
        )

    def peek(self) -> str | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise self.fail("the expression ends too early")
        self.index += 1
        return token

    def parse(self) -> Matcher:
        if not self.tokens:
            raise self.fail("the expression is empty")
        matcher = self.any_of()
        if self.peek() is not None:
            raise self.fail(f"unexpected {self.peek()!r}")
        return matcher

    def any_of(self) -> Matcher:
        parts = [self.all_of()]
        while self.peek() == "or":
            self.take()
            parts.append(self.all_of())
        return parts[0] if len(parts) == 1 else lambda names: any(p(names) for p in parts)

    def all_of(self) -> Matcher:
        parts = [self.negation()]
        while self.peek() == "and":
            self.take()
            parts.append(self.negation())
        return parts[0] if len(parts) == 1 else lambda names: all(p(names) for p in parts)

    def negation(self) -> Matcher:
        token = self.take()
        if token == "not":
            inner = self.negation()
            return lambda names: not inner(names)
        if token == "(":
            inner = self.any_of()
            if self.take() != ")":
                raise self.fail("a parenthesis is not closed")
            return inner
        if token in _KEYWORDS or token == ")":
            raise self.fail(f"unexpected {token!r}")
        return _word(token)


def parse_selector(expression: str) -> Selector:
    """Parse a -k expression; UsageError, with the problem, when it is not one."""
    parser = _Parser(expression)
    matcher = parser.parse()
    words = tuple(t for t in parser.tokens if t not in _KEYWORDS and t not in "()")
    return Selector(expression, matcher, words)
