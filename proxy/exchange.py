"""One exchange as the proxy saw it (`Facts`, gathered while it passes), and the record's line
made of it (`line`): the request as a reader can rebuild it (shape, path, body, the headers
without their secrets, times), the answer's status and usage, what each direction's bytes hash
to, and how it ended. The line is made after the exchange ends, away from the traffic."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ctxconf.userfiles.limits import LimitError, parse_json

from .apis import read_request, route_of, scrub_value
from .decode import DecodeError, Decoder
from .redact import KeyedHash, Redactor, account_key, split_query
from .tee import Tee
from .usage import UsageReader, tokens_of

Outcome = Literal[
    "complete", "truncated", "client-gone", "upstream-error", "refused", "interrupted"
]
OUTCOMES: tuple[Outcome, ...] = (
    "complete",
    "truncated",
    "client-gone",
    "upstream-error",
    "refused",
    "interrupted",
)
_GEMINI_MODEL = re.compile(r"/models/([^/:?]+):")


@dataclass
class Facts:
    """What the forwarder saw of one exchange; times in seconds on the monotonic clock, but
    `wall`, the wall clock at its start."""

    n: int
    wall: float
    start: float
    method: str
    raw_path: str
    headers: list[tuple[str, str]]
    request: Tee
    response: Tee
    usage: UsageReader = field(default_factory=UsageReader)
    status: int | None = None
    reason: str | None = None
    response_headers: list[tuple[str, str]] | None = None
    stream: bool = False
    answered: float | None = None  # the upstream's status line and headers came
    first_byte: float | None = None  # the answer's first byte of body came
    end: float | None = None
    outcome: Outcome = "complete"
    error: str | None = None
    usage_error: str | None = None  # why the answer's usage could not be read


def _header(headers: list[tuple[str, str]] | None, name: str) -> str:
    for key, value in headers or []:
        if key.lower() == name:
            return value
    return ""


def _since(facts: Facts, moment: float | None) -> float | None:
    return None if moment is None else round(moment - facts.start, 6)


def _decoded(tee: Tee, encoding: str) -> bytes:
    decoder = Decoder(encoding, tee.limit)
    return b"".join(decoder.feed(bytes(tee.copy)))


def _units(shape: str, body: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    try:
        request = read_request(shape, body)
    except Exception:  # a body shaped unlike its API's: no units, the hashes of the bytes stand
        return None
    return [
        {
            "path": unit.path,
            "section": unit.section,
            "kind": unit.kind,
            "role": unit.role,
            "tokens": unit.tokens,
            "sha256": hashlib.sha256(unit.data).hexdigest(),
        }
        for unit in request.units
    ]


def _request_part(
    facts: Facts, shape: str | None, redactor: Redactor, keyed: KeyedHash, hash_only: bool
) -> tuple[dict[str, Any], Any]:
    tee = facts.request
    encoding = _header(facts.headers, "content-encoding")
    part: dict[str, Any] = {
        "headers": redactor.headers(facts.headers),
        **_bytes(tee),
        "truncated": tee.truncated,
    }
    body: Any = None
    error: str | None = None
    if tee.truncated:
        error = f"the body passed the limit of {tee.limit:,} bytes: forwarded whole, not kept"
    elif tee.received_bytes:
        try:
            body = parse_json(_decoded(tee, encoding))
        except DecodeError as e:
            error = f"the body does not decode: {e}"
        except (LimitError, ValueError) as e:
            error = f"the body is not JSON: {str(e)[:200]}"
    clean = scrub_value(body, redactor.secrets)
    if isinstance(clean, dict) and isinstance(clean.get("prompt_cache_key"), str):
        # Kept as the same keyed hash as the line's, so the body still tells keys apart.
        clean = {**clean, "prompt_cache_key": keyed(body["prompt_cache_key"])}
    if hash_only:
        part["units"] = _units(shape, clean) if shape and isinstance(clean, dict) else None
    else:
        part["body"] = clean
    part["body_error"] = error
    return part, body


def _bytes(tee: Tee) -> dict[str, Any]:
    return {
        "bytes_received": tee.received_bytes,
        "bytes_forwarded": tee.forwarded_bytes,
        "sha256_received": tee.received_sha256,
        "sha256_forwarded": tee.forwarded_sha256,
    }


def _response_part(facts: Facts, redactor: Redactor) -> dict[str, Any]:
    tee = facts.response
    headers = facts.response_headers
    return {
        "status": facts.status,
        "reason": facts.reason,
        "headers": None if headers is None else redactor.headers(headers),
        "stream": facts.stream,
        **_bytes(tee),
        "truncated": tee.truncated,
    }


def _answer_usage(facts: Facts) -> None:
    """The usage of a whole (not streamed) answer, read from its copy."""
    tee = facts.response
    if facts.stream or not tee.copy or facts.usage.usage is not None:
        return
    if tee.truncated:
        facts.usage_error = f"the answer passed the limit of {tee.limit:,} bytes"
        return
    try:
        data = parse_json(_decoded(tee, _header(facts.response_headers, "content-encoding")))
    except DecodeError as e:
        facts.usage_error = f"the answer does not decode: {e}"
        return
    except (LimitError, ValueError):
        return  # not JSON: an error page, a plain text; no usage in it
    facts.usage.read(data)


def _usage(facts: Facts, shape: str | None) -> dict[str, Any] | None:
    _answer_usage(facts)
    found = facts.usage.usage
    if found is None:
        return None
    tokens = tokens_of(shape, found)
    return {
        "input": tokens.input,
        "read": tokens.read,
        "written": tokens.written,
        "output": tokens.output,
        "provider": found,  # numbers the provider answered, as it named them
    }


def line(facts: Facts, keyed: KeyedHash, hash_only: bool) -> dict[str, Any]:
    """The record's line for one exchange; nothing in it holds a credential."""
    path, query_secrets = split_query(facts.raw_path)
    redactor = Redactor(facts.headers, query_secrets)
    base = path.partition("?")[0].rstrip("/")
    routed = route_of(base) if facts.method == "POST" else None
    asked, shape = routed if routed is not None else (None, None)
    request, body = _request_part(facts, shape, redactor, keyed, hash_only)
    model = body.get("model") if isinstance(body, dict) else None
    if model is None:
        found = _GEMINI_MODEL.search(base)
        model = found.group(1) if found else None
    cache_key = body.get("prompt_cache_key") if isinstance(body, dict) else None
    account = account_key(facts.headers, query_secrets)
    return {
        "kind": "exchange",
        "n": facts.n,
        "outcome": facts.outcome,
        "error": None if facts.error is None else redactor.text(facts.error),
        "method": facts.method,
        "path": redactor.text(path),
        "shape": shape,
        "asked": asked,
        "model": None if model is None else redactor.text(str(model)),
        "account": None if account is None else {"from": account[0], "hash": keyed(account[1])},
        "prompt_cache_key": None if cache_key is None else keyed(str(cache_key)),
        "time": {
            "start": round(facts.wall, 6),
            "answered": _since(facts, facts.answered),
            "first_byte": _since(facts, facts.first_byte),
            "end": _since(facts, facts.end),
        },
        "request": request,
        "response": _response_part(facts, redactor),
        "usage": _usage(facts, shape),
        "usage_error": facts.usage_error,
    }


def bare_line(facts: Facts, why: str) -> dict[str, Any]:
    """The line of an exchange whose whole line could not be made: its outcome, times and the
    hashes of its bytes, nothing read from its headers or body."""
    return {
        "kind": "exchange",
        "n": facts.n,
        "outcome": facts.outcome,
        "error": f"its line could not be made: {why}",
        "method": facts.method,
        "path": facts.raw_path.partition("?")[0],
        "shape": None,
        "asked": None,
        "model": None,
        "account": None,
        "prompt_cache_key": None,
        "time": {
            "start": round(facts.wall, 6),
            "answered": _since(facts, facts.answered),
            "first_byte": _since(facts, facts.first_byte),
            "end": _since(facts, facts.end),
        },
        "request": {
            "headers": [],
            **_bytes(facts.request),
            "truncated": facts.request.truncated,
            "body": None,
            "body_error": "not read",
        },
        "response": {
            "status": facts.status,
            "reason": facts.reason,
            "headers": None,
            "stream": facts.stream,
            **_bytes(facts.response),
            "truncated": facts.response.truncated,
        },
        "usage": None,
        "usage_error": None,
    }


__all__ = ["OUTCOMES", "Facts", "Outcome", "bare_line", "line"]
