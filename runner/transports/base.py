"""The one interface every transport implements, and how a transport reports a broken answer.

A transport carries protocol messages (plain dicts) to an implementation and back. It checks
only what the carrying needs (bytes, JSON, an object); the protocol module checks the message.
When the implementation fails a case — it crashed, hung, answered garbage, or the connection
broke — the transport raises `CaseFailure`, which costs that one case; it then recovers (restarts
the process, reconnects) for the next one.
"""

from __future__ import annotations

import json
import math
import socket
import threading
from typing import Any, Literal, Protocol, runtime_checkable

from ctxconf.userfiles import limits
from ctxconf.userfiles.limits import LimitError, parse_json

Message = dict[str, Any]
FailureKind = Literal["error", "timeout", "crash"]

# Caps on what is read and kept, so a runaway implementation cannot exhaust the runner's memory.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
STDERR_KEPT_BYTES = 64 * 1024
# The longest any one wait lasts: a library caller's infinite timeout means "no timeout" in
# practice, while sockets, select and queues each refuse an infinite or overflowing number of
# seconds.
MAX_WAIT_SECONDS = 7 * 24 * 3600.0
# How long an implementation gets to start and answer hello, apart from a case's own timeout: an
# interpreter starting on a loaded machine takes seconds no step should.
START_SECONDS = 30.0


# What `ctxconf serve --http` accepts from its clients.
MAX_REQUEST_BYTES = MAX_MESSAGE_BYTES  # a request body (or a --stdio line); longer gets 413
LISTEN_BACKLOG = 512  # connections waiting to be accepted; the kernel may cap it (somaxconn)
REQUEST_SECONDS = 10.0  # from a request's first byte to its last, headers and body
IDLE_SECONDS = 60.0  # a kept-alive connection with no next request is closed after this


def clamp_timeout(seconds: float) -> float:
    """`seconds` as a wait every socket, select and queue accepts (inf and NaN included)."""
    if math.isnan(seconds) or seconds > MAX_WAIT_SECONDS:
        return MAX_WAIT_SECONDS
    return max(0.0, seconds)


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

    def __init__(
        self, kind: FailureKind, message: str, stderr: str = "", *, pointer: str = ""
    ) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.message = message
        self.stderr = stderr
        self.pointer = pointer  # where in the response the fault is (JSON pointer), if known


def encode_message(message: Message) -> bytes:
    return limits.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


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
        value = parse_json(text)
    except LimitError as error:
        raise CaseFailure("error", f"the response is refused: {error}") from None
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
        limits.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        bad = error.object[error.start : error.end]
        pointer = _first_unencodable(value)
        raise CaseFailure(
            "error",
            f"the response holds a lone surrogate ({bad.encode('unicode_escape').decode()})"
            f"{' at ' + pointer if pointer else ''}, which is not a character",
            pointer=pointer,
        ) from None


def _first_unencodable(value: object) -> str:
    """The JSON pointer of the first string (or key) in `value` that UTF-8 cannot encode."""
    stack: list[tuple[object, str]] = [(value, "")]
    while stack:
        item, at = stack.pop(0)
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return at or "/"
        elif isinstance(item, dict):
            for key, child in item.items():
                key_at = f"{at}/{str(key).replace('~', '~0').replace('/', '~1')}"
                stack.append((key, key_at))
                stack.append((child, key_at))
        elif isinstance(item, list):
            stack.extend((child, f"{at}/{index}") for index, child in enumerate(item))
    return ""


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


class Watchdog:
    """Shuts a socket down after `seconds`, which ends any read or write blocked on it: a
    deadline for a whole exchange, where a socket timeout bounds only each read."""

    def __init__(self, sock: socket.socket, seconds: float) -> None:
        self._sock = sock
        self.fired = False
        self._timer = threading.Timer(clamp_timeout(seconds), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        self.fired = True
        try:  # the plain socket's shutdown: a TLS socket's own would wait for its lock
            socket.socket.shutdown(self._sock, socket.SHUT_RDWR)
        except OSError:
            pass

    def cancel(self) -> None:
        self._timer.cancel()
