"""Upstreams that misbehave, each named by how: a raw TCP server on 127.0.0.1 on a loop of its
own, whose handler writes whatever bytes its failure needs. Each keeps the requests it read."""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
from collections.abc import Awaitable, Callable
from typing import Any

Handler = Callable[["RawUpstream", asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class RawUpstream:
    """A context manager; `url` to forward to, `requests` the raw requests read."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[bytes] = []
        self.gate = threading.Event()  # what a handler that holds waits for
        self.peer_closed = threading.Event()  # the proxy closed its connection
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            await self.handler(self, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            self._writers.discard(writer)

    def __enter__(self) -> RawUpstream:
        self._thread.start()

        async def start() -> asyncio.Server:
            return await asyncio.start_server(self._serve, "127.0.0.1", 0)

        self._server = asyncio.run_coroutine_threadsafe(start(), self._loop).result()
        return self

    def __exit__(self, *exc: object) -> None:
        self.gate.set()

        async def stop() -> None:
            assert self._server is not None
            self._server.close()
            for writer in list(self._writers):
                writer.close()
            await self._server.wait_closed()

        try:
            asyncio.run_coroutine_threadsafe(stop(), self._loop).result(timeout=30)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    async def read_request(self, reader: asyncio.StreamReader) -> bytes:
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        body = await reader.readexactly(length)
        self.requests.append(head + body)
        return body

    async def wait_gate(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.gate.wait)


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events)


ANTHROPIC_EVENTS = sse(
    {"type": "message_start", "message": {"usage": {"input_tokens": 5,
     "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20, "output_tokens": 1}}},
    {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "hi"}},
    {"type": "message_delta", "usage": {"output_tokens": 7, "input_tokens": None}},
    {"type": "message_stop"},
)  # fmt: skip


GZIPPED_EVENTS = gzip.compress(ANTHROPIC_EVENTS, mtime=0)


FIRST_EVENT = ANTHROPIC_EVENTS[: ANTHROPIC_EVENTS.index(b"\n\n") + 2]  # message_start


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


_SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"


async def answers_500(up: RawUpstream, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
    await up.read_request(r)
    body = b'{"error": {"message": "overloaded"}}'
    w.write(b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n")
    w.write(f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
    await w.drain()


async def answers_garbage(
    up: RawUpstream, r: asyncio.StreamReader, w: asyncio.StreamWriter
) -> None:
    await up.read_request(r)
    w.write(b"\x00\x01 this is not HTTP at all\r\n\r\n")
    await w.drain()


async def resets_mid_stream(
    up: RawUpstream, r: asyncio.StreamReader, w: asyncio.StreamWriter
) -> None:
    await up.read_request(r)
    w.write(_SSE_HEAD + b"\r\n" + _chunk(FIRST_EVENT))
    await w.drain()
    w.transport.abort()


async def slow_first_byte(
    up: RawUpstream, r: asyncio.StreamReader, w: asyncio.StreamWriter
) -> None:
    """Nothing, not even the status line, until the test opens the gate."""
    await up.read_request(r)
    await up.wait_gate()
    w.write(_SSE_HEAD + b"\r\n" + _chunk(ANTHROPIC_EVENTS) + b"0\r\n\r\n")
    await w.drain()


async def holds_mid_stream(
    up: RawUpstream, r: asyncio.StreamReader, w: asyncio.StreamWriter
) -> None:
    """One event, then nothing until the proxy closes the connection (noted)."""
    await up.read_request(r)
    w.write(_SSE_HEAD + b"\r\n" + _chunk(FIRST_EVENT))
    await w.drain()
    while await r.read(1024):
        pass
    up.peer_closed.set()


async def gzip_stream_in_pieces(
    up: RawUpstream, r: asyncio.StreamReader, w: asyncio.StreamWriter
) -> None:
    """Anthropic's events gzipped, sent in chunks of 7 bytes (cut mid-event), kept alive."""
    await up.read_request(r)
    packed = GZIPPED_EVENTS
    w.write(_SSE_HEAD + b"Content-Encoding: gzip\r\n\r\n")
    for at in range(0, len(packed), 7):
        w.write(_chunk(packed[at : at + 7]))
        await w.drain()
    w.write(b"0\r\n\r\n")
    await w.drain()
