"""OpenAI Responses' reasoning: what a request asks (`reasoning`; `encrypted_content` when the
response is not stored, `store` false, or `include` names `reasoning.encrypted_content`; a
summary when `reasoning.summary` is set), the reasoning item's content sealed into its
`encrypted_content`, and the API's check of the items sent back: an `encrypted_content` it
cannot open is its 400 `invalid_encrypted_content`, as it words it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxconf.cache.credentials import Headers

from . import wire
from .reasoning import Asked, ReasoningOptions, ReasoningWay, Thought
from .shape import Refusal
from .signing import Signer

ENCRYPTED = "reasoning.encrypted_content"


def asked(body: Mapping[str, Any], options: ReasoningOptions) -> Asked | None:
    reasoning = body.get("reasoning")
    if not isinstance(reasoning, Mapping):
        return None
    include = body.get("include")
    listed = isinstance(include, list) and ENCRYPTED in include
    return Asked(
        signed=body.get("store") is False or listed, summary=bool(reasoning.get("summary"))
    )


def sign(
    thought: Thought, body: Mapping[str, Any], calls: tuple[tuple[str, Any], ...], signer: Signer
) -> Thought:
    sealed = signer.seal("reasoning", thought.text) if thought.asked.signed else ""
    return Thought(thought.text, thought.asked, sealed=sealed)


def _shown(sealed: str) -> str:
    return f"{sealed[:4]}...{sealed[-4:]}" if len(sealed) > 8 else sealed


def check(
    body: Mapping[str, Any],
    headers: Headers,
    model: str,
    signer: Signer,
    options: ReasoningOptions,
) -> Refusal | None:
    raw = body.get("input")
    for item in wire.dicts(raw) if isinstance(raw, list) else []:
        if item.get("type") != "reasoning" or item.get("encrypted_content") is None:
            continue
        sealed = item.get("encrypted_content")
        if signer.open("reasoning", sealed) is not None:
            continue
        what = f"for item {item['id']}" if isinstance(item.get("id"), str) else _shown(str(sealed))
        text = f"The encrypted content {what} could not be verified."
        if isinstance(item.get("id"), str):
            text += " Reason: Encrypted content could not be decrypted or parsed."
        error = {"message": text, "type": "invalid_request_error", "param": None}
        return Refusal(400, {"error": {**error, "code": "invalid_encrypted_content"}}, text)
    return None


REASONING = ReasoningWay(asked, sign, check)

__all__ = ["REASONING", "asked", "check", "sign"]
