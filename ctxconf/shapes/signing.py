"""The model's signed reasoning, as the mock makes and checks it: each signed value is an HMAC
under a secret of the session's own over what it signs (a thinking block's text, a reasoning
item's content, a call's part), so that a value changed, truncated or made up by a harness is
told from one sent back as it came, as a provider tells it. A signature may also carry a
digest of the conversation before its block (Anthropic's block binding)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxconf.cache.canonical import canonical
from ctxconf.cache.units import blocks_of

MAC_BYTES = 32
BOUND_BYTES = 16
THINKING_KINDS = frozenset({"thinking", "redacted_thinking"})


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return None


@dataclass(frozen=True)
class Opened:
    """A sealed value that checked: what it carried, and the conversation it was bound to."""

    content: str
    bound: bytes


class Signer:
    """One session's secret, and the values made and checked under it."""

    def __init__(self, secret: bytes | None = None) -> None:
        self._secret = secret if secret is not None else secrets.token_bytes(32)

    def _mac(self, kind: str, content: str, bound: bytes) -> bytes:
        message = kind.encode() + b"\0" + bound + b"\0" + content.encode("utf-8")
        return hmac.new(self._secret, message, hashlib.sha256).digest()

    def sign(self, kind: str, content: str, bound: bytes = b"") -> str:
        """A signature of `content` (which travels beside it), bound to `bound` if given."""
        return _b64(bytes([len(bound)]) + bound + self._mac(kind, content, bound))

    def check(self, kind: str, content: str, signature: Any) -> bytes | None:
        """The conversation digest a signature of `content` was bound to (b"" for none), or
        None when it is not one of this session's signatures of that content."""
        raw = _unb64(signature) if isinstance(signature, str) else None
        if not raw or len(raw) != 1 + raw[0] + MAC_BYTES:
            return None
        bound, mac = raw[1 : 1 + raw[0]], raw[1 + raw[0] :]
        return bound if hmac.compare_digest(mac, self._mac(kind, content, bound)) else None

    def seal(self, kind: str, content: str) -> str:
        """`content` carried inside an opaque value (Responses' `encrypted_content`, a redacted
        thinking block's `data`)."""
        return _b64(content.encode("utf-8")) + "." + self.sign(kind, content)

    def open(self, kind: str, sealed: Any) -> Opened | None:
        """What a sealed value carries; None when it was not sealed so by this session."""
        if not isinstance(sealed, str) or sealed.count(".") != 1:
            return None
        body, signature = sealed.split(".")
        raw = _unb64(body)
        if raw is None:
            return None
        try:
            content = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
        bound = self.check(kind, content, signature)
        return None if bound is None else Opened(content, bound)


def _unmarked(value: Any) -> Any:
    """A message without what binding ignores: cache marks, and thinking blocks (a leading run
    of them may be left out)."""
    if isinstance(value, Mapping):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [
            _unmarked(v)
            for v in value
            if not (isinstance(v, Mapping) and v.get("type") in THINKING_KINDS)
        ]
    return value


def conversation_digest(system: Any, tools: Any, messages: Sequence[Mapping[str, Any]]) -> bytes:
    """What a bound signature covers: the system prompt, the tools and the messages before its
    block, cache marks and thinking blocks aside."""
    # A text given as a string reads as its one text block, as the provider renders it.
    rendered = [{**m, "content": blocks_of(m.get("content"))} for m in messages]
    whole = {"system": blocks_of(system), "tools": tools, "messages": rendered}
    return hashlib.sha256(canonical(_unmarked(whole))).digest()[:BOUND_BYTES]


__all__ = ["Opened", "Signer", "conversation_digest"]
