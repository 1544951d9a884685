"""A body's bytes decoded from their Content-Encoding as they arrive, for the proxy's own copy:
what is forwarded stays as it came. At most `limit` bytes come out in all, a piece at a time, so
a small body that inflates to gigabytes costs the proxy no more than the limit."""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable, Iterator
from typing import Any

PIECE = 1024 * 1024  # the most one step hands on at once

Stage = Callable[[bytes], Iterator[bytes]]


class DecodeError(Exception):
    """The bytes do not decode in their encoding, or the encoding is not one the proxy reads."""


def _zlib(wbits: int | None) -> Stage:
    """gzip, or deflate (zlib-wrapped as meant, raw as some send it: told by its first byte)."""
    inflater: list[Any] = []

    def step(data: bytes) -> Iterator[bytes]:
        if not inflater:
            if not data:
                return
            bits = wbits if wbits is not None else (15 if data[:1] == b"\x78" else -15)
            inflater.append(zlib.decompressobj(bits))
        try:
            out = inflater[0].decompress(data, PIECE)
            yield out
            while inflater[0].unconsumed_tail:
                yield inflater[0].decompress(inflater[0].unconsumed_tail, PIECE)
        except zlib.error as e:
            raise DecodeError(str(e)) from None

    return step


def _brotli() -> Stage:
    try:
        module: Any = importlib.import_module("brotli")
    except ImportError:
        raise DecodeError("br, and the Python package brotli is not installed") from None
    inflater = module.Decompressor()

    def step(data: bytes) -> Iterator[bytes]:
        try:
            yield inflater.process(data, output_buffer_limit=PIECE)
            while not inflater.can_accept_more_data():
                yield inflater.process(b"", output_buffer_limit=PIECE)
        except module.error as e:
            raise DecodeError(f"br: {e}") from None

    return step


def _zstd() -> Stage:
    inflater: Any = None
    for name in ("compression.zstd", "zstandard"):
        try:
            module: Any = importlib.import_module(name)
        except ImportError:
            continue
        made = module.ZstdDecompressor()
        inflater = made.decompressobj() if name == "zstandard" else made
        break
    if inflater is None:
        raise DecodeError("zstd, and neither compression.zstd nor zstandard is installed")

    def step(data: bytes) -> Iterator[bytes]:
        try:
            yield inflater.decompress(data)
        except Exception as e:  # each module raises its own error
            raise DecodeError(f"zstd: {e}") from None

    return step


def _stage(coding: str) -> Stage | None:
    if coding in ("gzip", "x-gzip"):
        return _zlib(16 + zlib.MAX_WBITS)
    if coding == "deflate":
        return _zlib(None)
    if coding == "br":
        return _brotli()
    if coding == "zstd":
        return _zstd()
    if coding in ("", "identity"):
        return None
    raise DecodeError(f"the {coding[:40]!r} encoding, which the proxy does not read")


class Decoder:
    """Feed it the bytes as they come; it gives back the decoded bytes, `limit` in all. Past the
    limit `over` is set and nothing more comes out; DecodeError where they do not decode."""

    def __init__(self, encoding: str, limit: int) -> None:
        codings = [c.strip().lower() for c in encoding.split(",") if c.strip()]
        # Codings are applied in the order listed, so they are undone in reverse.
        self.stages = [s for s in (_stage(c) for c in reversed(codings)) if s is not None]
        self.left = limit
        self.over = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self.over:
            return
        for piece in self._through(data, 0):
            if len(piece) > self.left:
                yield piece[: self.left]
                self.left = 0
                self.over = True
                return
            self.left -= len(piece)
            yield piece

    def _through(self, data: bytes, index: int) -> Iterator[bytes]:
        if index == len(self.stages):
            if data:
                yield data
            return
        for piece in self.stages[index](data):
            yield from self._through(piece, index + 1)


__all__ = ["PIECE", "DecodeError", "Decoder"]
