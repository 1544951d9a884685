"""A request body read within limits: its size on the wire, its size once inflated (gzip,
deflate, br) and its JSON (depth, numbers: `ctxconf.userfiles.limits.parse_json`).

A harness's body is untrusted like any input: a 100,000-deep array, a 102 KB gzip body that
inflates to 100 MB, a chunk size line without end. Each is refused with a `Refused` (an HTTP
status and a one-line reason), which the mock answers as a 4xx and records, never a traceback.
"""

from __future__ import annotations

import importlib
import zlib
from email.message import Message
from io import BufferedIOBase
from typing import Any, Protocol, cast

from ctxconf.userfiles.limits import LimitError, parse_json

# The same bound as the conformance runner's on one message (runner/transports/base.py).
MAX_BODY_BYTES = 64 * 1024 * 1024
MAX_CHUNK_LINE_BYTES = 1024
BROTLI_STEP_BYTES = 1024 * 1024


class Refused(Exception):
    """A body the mock will not read: `status` is the HTTP answer, `reason` says why."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def _too_large(what: str) -> Refused:
    return Refused(413, f"{what} past {MAX_BODY_BYTES:,} bytes")


def _chunked(rfile: BufferedIOBase) -> bytes:
    data = bytearray()
    while True:
        line = rfile.readline(MAX_CHUNK_LINE_BYTES + 1)
        if len(line) > MAX_CHUNK_LINE_BYTES:
            raise Refused(400, "a chunk size line longer than 1,024 bytes")
        try:
            size = int(line.split(b";")[0].strip() or b"0", 16)
        except ValueError:
            raise Refused(400, f"a chunk size that is not a number: {line[:40]!r}") from None
        if size == 0:
            rfile.readline(MAX_CHUNK_LINE_BYTES)
            return bytes(data)
        if len(data) + size > MAX_BODY_BYTES:
            raise _too_large("a chunked body")
        data += rfile.read(size)
        rfile.readline(MAX_CHUNK_LINE_BYTES)


def read_raw(rfile: BufferedIOBase, headers: Message) -> bytes:
    """The body as sent, chunked or of a Content-Length, refused past MAX_BODY_BYTES."""
    if headers.get("Transfer-Encoding", "").lower() == "chunked":
        return _chunked(rfile)
    try:
        length = int(headers.get("Content-Length") or 0)
    except ValueError:
        raise Refused(400, "a Content-Length that is not a number") from None
    if length > MAX_BODY_BYTES:
        raise _too_large(f"a body of {length:,} bytes,")
    return rfile.read(max(0, length))


def _zlib(raw: bytes, wbits: int, name: str) -> bytes:
    inflater = zlib.decompressobj(wbits)
    try:
        out = inflater.decompress(raw, MAX_BODY_BYTES + 1)
        if len(out) <= MAX_BODY_BYTES and not inflater.unconsumed_tail:
            out += inflater.flush()
    except zlib.error as e:
        raise Refused(400, f"a {name} body that does not inflate: {e}") from None
    if len(out) > MAX_BODY_BYTES or inflater.unconsumed_tail:
        raise _too_large(f"a {name} body of {len(raw):,} bytes that inflates")
    return out


class _Brotli(Protocol):
    def process(self, data: bytes, output_buffer_limit: int = ...) -> bytes: ...

    def can_accept_more_data(self) -> bool: ...

    def is_finished(self) -> bool: ...


def _brotli(raw: bytes) -> bytes:
    try:
        module: Any = importlib.import_module("brotli")
    except ImportError:
        raise Refused(415, "a br body, and the Python package brotli is not installed") from None
    inflater = cast(_Brotli, module.Decompressor())
    try:
        out = bytearray(inflater.process(raw, output_buffer_limit=BROTLI_STEP_BYTES))
        while not inflater.can_accept_more_data() and len(out) <= MAX_BODY_BYTES:
            out += inflater.process(b"", output_buffer_limit=BROTLI_STEP_BYTES)
    except module.error as e:
        raise Refused(400, f"a br body that does not inflate: {e}") from None
    if len(out) > MAX_BODY_BYTES:
        raise _too_large(f"a br body of {len(raw):,} bytes that inflates")
    return bytes(out)


def inflate(raw: bytes, encoding: str) -> bytes:
    """`raw` decoded from its Content-Encoding (codings applied in order, undone in reverse)."""
    codings = [c.strip().lower() for c in encoding.split(",") if c.strip()]
    for coding in reversed(codings):
        if coding in ("gzip", "x-gzip"):
            raw = _zlib(raw, 16 + zlib.MAX_WBITS, "gzip")
        elif coding == "deflate":
            # Meant as zlib-wrapped; some clients send it raw.
            wrapped = raw[:1] == b"\x78"
            raw = _zlib(raw, zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS, "deflate")
        elif coding == "br":
            raw = _brotli(raw)
        elif coding != "identity":
            raise Refused(
                415, f"a body in the {coding[:40]!r} encoding, which the mock cannot read"
            )
    return raw


def parse_body(data: bytes) -> Any:
    """The body's JSON within the limits; an empty body is an empty object."""
    try:
        return parse_json(data or b"{}")
    except LimitError as e:
        raise Refused(413, f"the body's JSON: {e}") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise Refused(400, f"a body that is not JSON: {e}") from None


def read_body(rfile: BufferedIOBase, headers: Message) -> Any:
    """The JSON a request carries, read within every limit above."""
    raw = read_raw(rfile, headers)
    return parse_body(inflate(raw, headers.get("Content-Encoding", "")))


__all__ = ["MAX_BODY_BYTES", "Refused", "inflate", "parse_body", "read_body", "read_raw"]
