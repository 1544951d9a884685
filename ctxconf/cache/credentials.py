"""What a request's headers say about caching, and nothing that would let anyone in.

Only three headers are kept (`anthropic-beta`, `anthropic-version`, `openai-beta`). The values of
the credential headers are gathered first, so that a kept header holding one is dropped and any
copy of one inside the body is replaced before anything of the request is stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

CACHING_HEADERS = ("anthropic-beta", "anthropic-version", "openai-beta")
CREDENTIAL_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "cookie",
        "set-cookie",
    }
)
REDACTED = "[redacted]"
# A secret shorter than this is not searched for inside other text: it would match words.
_MIN_SECRET = 8
_PIECES = re.compile(r"[\s;,=]+")

Headers = Mapping[str, str] | Iterable[tuple[str, str]]


def _pairs(headers: Headers) -> list[tuple[str, str]]:
    items = headers.items() if isinstance(headers, Mapping) else headers
    return [(str(name).lower(), str(value)) for name, value in items]


def secrets_of(headers: Headers) -> tuple[str, ...]:
    """The credential values of `headers`: each whole value and each of its pieces (a bearer
    token without its scheme, a cookie's value), longest first."""
    found: set[str] = set()
    for name, value in _pairs(headers):
        if name not in CREDENTIAL_HEADERS:
            continue
        for piece in [value.strip(), *_PIECES.split(value)]:
            if len(piece) >= _MIN_SECRET:
                found.add(piece)
    return tuple(sorted(found, key=lambda s: (-len(s), s)))


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return text


def scrub_value(value: Any, secrets: tuple[str, ...]) -> Any:
    """`value` (parsed JSON) with every credential replaced in its strings and keys."""
    if not secrets:
        return value
    if isinstance(value, str):
        return scrub(value, secrets)
    if isinstance(value, dict):
        return {scrub(str(k), secrets): scrub_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_value(item, secrets) for item in value]
    return value


def caching_headers(headers: Headers) -> tuple[tuple[str, str], ...]:
    """The caching headers, in the order sent, names lowercased; one holding a credential is
    left out."""
    secrets = secrets_of(headers)
    return tuple(
        (name, value)
        for name, value in _pairs(headers)
        if name in CACHING_HEADERS and scrub(value, secrets) == value
    )


__all__ = [
    "CACHING_HEADERS",
    "CREDENTIAL_HEADERS",
    "REDACTED",
    "Headers",
    "caching_headers",
    "scrub",
    "scrub_value",
    "secrets_of",
]
