"""What of a request may be written down, and how a secret is named without being written.

A credential is never recorded: the values of the credential headers (`authorization`,
`x-api-key`, `x-goog-api-key`, cookies, …) and of the secret query keys (`key=`, …) are replaced
wherever they appear, in the headers kept, the path and the body. The account key and a
`prompt_cache_key` are kept only as keyed hashes: HMAC-SHA256 under a random salt kept in the
record folder, so two requests of one key are seen to share it, and nobody without the folder
can test a guess."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote_plus

from .apis import CREDENTIAL_HEADERS, REDACTED, scrub, secrets_of

SALT_FILE = "salt"
SECRET_QUERY_KEYS = frozenset({"key", "api_key", "apikey", "access_token", "token"})
# Where the account's key is found, in the order looked at.
ACCOUNT_HEADERS = ("x-api-key", "authorization", "x-goog-api-key", "api-key")
_MIN_SECRET = 8  # as the probe's scrubbing: a shorter value would match words


class KeyedHash:
    """HMAC-SHA256 under the record folder's salt, made once and kept in `folder/salt`."""

    def __init__(self, salt: bytes) -> None:
        self._salt = salt

    @classmethod
    def of_folder(cls, folder: Path) -> KeyedHash:
        path = folder / SALT_FILE
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            text = path.read_text(encoding="ascii").strip()
            if len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
                raise ValueError(f"{path}: not a salt this proxy wrote (64 hex digits)") from None
            return cls(bytes.fromhex(text))
        salt = secrets.token_bytes(32)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(salt.hex() + "\n")
        return cls(salt)

    def __call__(self, value: str) -> str:
        return "hmac-sha256:" + hmac.new(self._salt, value.encode(), hashlib.sha256).hexdigest()


def split_query(raw_path: str) -> tuple[str, list[str]]:
    """The path as sent, with each secret query value replaced, and those values (decoded).
    Every other byte of the path stays as it was sent."""
    path, mark, query = raw_path.partition("?")
    if not mark:
        return raw_path, []
    found: list[str] = []
    pieces = []
    for piece in query.split("&"):
        name, eq, value = piece.partition("=")
        if eq and unquote_plus(name).lower() in SECRET_QUERY_KEYS:
            found.append(unquote_plus(value))
            piece = f"{name}={REDACTED}"
        pieces.append(piece)
    return f"{path}?{'&'.join(pieces)}", found


def account_key(headers: Iterable[tuple[str, str]], query: list[str]) -> tuple[str, str] | None:
    """(where it came from, the key) of the account the request is made for, if it says."""
    pairs = [(name.lower(), value.strip()) for name, value in headers]
    for wanted in ACCOUNT_HEADERS:
        for name, value in pairs:
            if name != wanted or not value:
                continue
            scheme, _, token = value.partition(" ")
            if name == "authorization":
                if scheme.lower() != "bearer" or not token.strip():
                    continue
                value = token.strip()
            return name, value
    for value in query:
        if value:
            return "key=", value
    return None


class Redactor:
    """The secrets of one request, and everything of it made fit to record."""

    def __init__(self, headers: list[tuple[str, str]], query_secrets: list[str]) -> None:
        found = set(secrets_of(headers))
        found.update(s for s in query_secrets if len(s) >= _MIN_SECRET)
        self.secrets = tuple(sorted(found, key=lambda s: (-len(s), s)))

    def text(self, value: str) -> str:
        return scrub(value, self.secrets)

    def headers(self, headers: Iterable[tuple[str, str]]) -> list[list[str]]:
        """The headers in the order sent, a credential header's value replaced, and any other
        value holding a secret scrubbed."""
        kept = []
        for name, value in headers:
            if name.lower() in CREDENTIAL_HEADERS:
                kept.append([name, REDACTED])
            else:
                kept.append([name, self.text(value)])
        return kept


__all__ = [
    "ACCOUNT_HEADERS",
    "SALT_FILE",
    "SECRET_QUERY_KEYS",
    "KeyedHash",
    "Redactor",
    "account_key",
    "split_query",
]
