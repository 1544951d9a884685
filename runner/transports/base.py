"""The one interface every transport implements, and how a transport reports a broken answer.

A transport carries protocol messages (plain dicts) to an implementation and back. It checks
only what the carrying needs (bytes, JSON, an object); the protocol module checks the message.
When the implementation fails a case — it crashed, hung, answered garbage, or the connection
broke — the transport raises `CaseFailure`, which costs that one case; it then recovers (restarts
the process, reconnects) for the next one.
"""

from __future__ import annotations

import json
from typing import Any, Literal, Protocol, runtime_checkable

Message = dict[str, Any]
FailureKind = Literal["error", "timeout", "crash"]

# Caps on what is read and kept, so a runaway implementation cannot exhaust the runner's memory.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
STDERR_KEPT_BYTES = 64 * 1024


class Transport(Protocol):
    def hello(self) -> Message: ...

    def run(self, request: Message, timeout: float) -> Message: ...

    def close(self) -> None: ...


@runtime_checkable
class KeepsStderr(Protocol):
    """A transport that sees the implementation's stderr hands it over case by case."""

    def take_stderr(self) -> str: ...


class CaseFailure(Exception):
    """The implementation failed the message being exchanged; `kind` becomes the verdict."""

    def __init__(self, kind: FailureKind, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.message = message
        self.stderr = stderr


def encode_message(message: Message) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def decode_message(data: bytes) -> Message:
    """One received message: UTF-8 JSON holding an object, or CaseFailure saying what it was."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CaseFailure(
            "error",
            f"the response is not UTF-8: byte 0x{data[error.start]:02x} at offset {error.start}",
        ) from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise CaseFailure(
            "error",
            f"the response is not JSON ({error.msg} at column {error.colno}): {_excerpt(text)}",
        ) from None
    if b"\\ud" in data.lower():  # only an escape can smuggle in a lone surrogate
        check_characters(value)
    if not isinstance(value, dict):
        kind = _JSON_TYPES.get(type(value), type(value).__name__)
        raise CaseFailure("error", f"not a protocol message: a JSON {kind}: {_excerpt(text)}")
    return value


def check_characters(value: object) -> None:
    """CaseFailure if `value` holds a lone surrogate (JSON allows the escape; Unicode has no such
    character, and it could be neither shown nor written to the results file)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        bad = error.object[error.start : error.end]
        raise CaseFailure(
            "error",
            f"the response holds a lone surrogate ({bad.encode('unicode_escape').decode()}),"
            " which is not a character",
        ) from None


_JSON_TYPES = {
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def _excerpt(text: str, limit: int = 200) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "…")
