"""The forwarding itself: each request's method, path, query, headers and body bytes go to the
upstream as they came (the hop-by-hop headers aside, and `Host`, which names the upstream), and
its answer comes back a chunk at a time as it arrives, its bytes as they came (compressed ones
too). Only the proxy's own copy is decoded, for the usage; a stream's events are read as they
pass, never held. No read timeout: a model may think for minutes before its first byte.

A WebSocket upgrade is refused with a 426 that says to use HTTP (Codex then falls back to HTTP
at once). An upstream that cannot be reached, answers garbage or breaks off mid-answer, and a
client that goes away, each end their own exchange, recorded with how it ended; the proxy goes
on serving."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import aiohttp
from aiohttp import web
from multidict import CIMultiDict
from yarl import URL

from .decode import DecodeError, Decoder
from .exchange import Facts
from .tee import Tee
from .usage import EventSplitter

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
# Also not passed on: Host (the upstream's own is sent) and Expect (the proxy has read the body).
NOT_FORWARDED = HOP_BY_HOP | {"host", "expect"}
CONNECT_TIMEOUT = 30.0  # seconds to open a connection to the upstream; reading has no timeout
WEBSOCKET_REFUSAL = (
    "ctxconf proxy carries HTTP only, not WebSocket: send this request over HTTP (Codex falls "
    "back to HTTP on this 426 by itself)"
)


@dataclass(frozen=True)
class Settings:
    upstream: str  # scheme, host, port and any path prefix, without a trailing slash
    body_limit: int  # the most of one body the record keeps


def _dropped(headers: list[tuple[str, str]]) -> frozenset[str]:
    """The names not passed on: the hop-by-hop ones, and those the Connection header lists."""
    listed = {
        token.strip().lower()
        for name, value in headers
        if name.lower() == "connection"
        for token in value.split(",")
    }
    return NOT_FORWARDED | listed


def _passed(headers: list[tuple[str, str]]) -> CIMultiDict[str]:
    dropped = _dropped(headers)
    return CIMultiDict((name, value) for name, value in headers if name.lower() not in dropped)


def _pairs(raw: tuple[tuple[bytes, bytes], ...]) -> list[tuple[str, str]]:
    return [(name.decode("latin-1"), value.decode("latin-1")) for name, value in raw]


def _is_websocket(headers: list[tuple[str, str]]) -> bool:
    return any(n.lower() == "upgrade" and "websocket" in v.lower() for n, v in headers)


def client_session() -> aiohttp.ClientSession:
    """The upstream's client: nothing added to what the harness sent (no User-Agent, Accept,
    Accept-Encoding or Content-Type of its own), answers left compressed, no read timeout, no
    proxy from the environment, no cookies kept."""
    return aiohttp.ClientSession(
        auto_decompress=False,
        skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
        timeout=aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_TIMEOUT, sock_read=None),
        cookie_jar=aiohttp.DummyCookieJar(),
        connector=aiohttp.TCPConnector(limit=0),
        trust_env=False,
    )


class _Sent:
    """How the request's body went: where it broke off on the harness's side, if it did."""

    def __init__(self) -> None:
        self.gone: str | None = None


class Forwarder:
    """The handler of every request; `ended` gets each exchange's facts as it ends."""

    def __init__(
        self,
        settings: Settings,
        session: aiohttp.ClientSession,
        ended: Callable[[Facts], None],
    ) -> None:
        self.settings = settings
        self.session = session
        self.ended = ended
        self.count = 0
        self.stopping = False

    def _facts(self, request: web.BaseRequest) -> Facts:
        self.count += 1
        limit = self.settings.body_limit
        return Facts(
            n=self.count,
            wall=time.time(),
            start=time.monotonic(),
            method=request.method,
            raw_path=request.raw_path,
            headers=_pairs(request.raw_headers),
            request=Tee(limit),
            response=Tee(limit),
        )

    async def handle(self, request: web.BaseRequest) -> web.StreamResponse:
        facts = self._facts(request)
        try:
            if _is_websocket(facts.headers):
                return self._refuse_websocket(facts)
            return await self._forward(request, facts)
        except asyncio.CancelledError:
            # The harness closed its connection (or the proxy is stopping) mid-exchange.
            facts.outcome = "interrupted" if self.stopping else "client-gone"
            raise
        finally:
            facts.end = time.monotonic()
            self.ended(facts)

    def _refuse_websocket(self, facts: Facts) -> web.StreamResponse:
        facts.outcome, facts.error = "refused", "a WebSocket upgrade, answered 426"
        facts.status = 426
        body = {"error": {"type": "websocket_not_supported", "message": WEBSOCKET_REFUSAL}}
        response = web.json_response(body, status=426, headers={"Connection": "close"})
        response.force_close()
        return response

    def _body(self, request: web.BaseRequest, tee: Tee, sent: _Sent) -> AsyncIterator[bytes]:
        async def chunks() -> AsyncIterator[bytes]:
            while True:
                try:
                    chunk = await request.content.readany()
                except (ConnectionError, aiohttp.ClientPayloadError, web.HTTPException) as e:
                    sent.gone = _said(e)
                    raise
                if not chunk:
                    return
                tee.received(chunk)
                yield chunk
                tee.forwarded(chunk)  # the upstream's connection took it

        return chunks()

    async def _forward(self, request: web.BaseRequest, facts: Facts) -> web.StreamResponse:
        url = URL(self.settings.upstream + facts.raw_path, encoded=True)
        sent = _Sent()
        data = self._body(request, facts.request, sent) if request.body_exists else None
        try:
            upstream = await self.session.request(
                request.method,
                url,
                headers=_passed(facts.headers),
                data=data,
                allow_redirects=False,
            )
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError, ValueError) as e:
            if sent.gone is not None:
                facts.outcome = "client-gone"
                facts.error = f"the request's body broke off: {sent.gone}"
                return _closed(request)
            return self._unreachable(facts, e)
        try:
            response = await self._answer(request, facts, upstream)
        except BaseException:  # cancelled: the harness went away, or the proxy is stopping
            upstream.close()  # nobody reads the rest: the upstream is told at once
            raise
        if facts.outcome not in ("complete", "truncated"):
            upstream.close()
        upstream.release()
        return response

    def _unreachable(self, facts: Facts, error: BaseException) -> web.StreamResponse:
        said = _said(error)
        facts.outcome, facts.error, facts.status = "upstream-error", said, 502
        message = f"ctxconf proxy: the upstream {self.settings.upstream} failed: {said}"
        body = {"error": {"type": "proxy_upstream_error", "message": message}}
        return web.Response(status=502, text=json.dumps(body), content_type="application/json")

    async def _answer(
        self, request: web.BaseRequest, facts: Facts, upstream: aiohttp.ClientResponse
    ) -> web.StreamResponse:
        facts.answered = time.monotonic()
        headers = _pairs(upstream.raw_headers)
        facts.status, facts.reason, facts.response_headers = (
            upstream.status,
            upstream.reason,
            headers,
        )
        facts.stream = upstream.content_type == "text/event-stream"
        response = web.StreamResponse(
            status=upstream.status, reason=upstream.reason, headers=_passed(headers)
        )
        tee = facts.response
        if facts.stream:
            tee.keep = False  # a stream's usage is read as it passes; nothing of it is kept
        events = _Events(upstream.headers.get("Content-Encoding", ""), facts)
        await response.prepare(request)
        try:
            async for chunk in upstream.content.iter_any():
                if facts.first_byte is None:
                    facts.first_byte = time.monotonic()
                tee.received(chunk)
                await response.write(chunk)
                tee.forwarded(chunk)
                events.feed(chunk)
        except (aiohttp.ClientError, asyncio.TimeoutError) as e:
            facts.outcome, facts.error = "upstream-error", f"the answer broke off: {_said(e)}"
            return _closed(request, response)
        except ConnectionError as e:
            facts.outcome, facts.error = "client-gone", f"the harness went away: {_said(e)}"
            return _closed(request, response)
        events.close()
        if facts.request.truncated or tee.truncated:
            facts.outcome = "truncated"
        return response


class _Events:
    """A stream's bytes decoded and split into events for the usage, as they pass."""

    def __init__(self, encoding: str, facts: Facts) -> None:
        self.facts = facts
        self.splitter = EventSplitter(facts.usage)
        self.decoder: Decoder | None = None
        if facts.stream:
            try:
                # No total: what is decoded is split into events and let go, a piece at a time.
                self.decoder = Decoder(encoding, 2**62)
            except DecodeError as e:
                facts.usage_error = f"the stream does not decode: {e}"

    def feed(self, chunk: bytes) -> None:
        if self.decoder is None:
            return
        try:
            for piece in self.decoder.feed(chunk):
                self.splitter.feed(piece)
        except DecodeError as e:
            self.facts.usage_error = f"the stream does not decode: {e}"
            self.decoder = None

    def close(self) -> None:
        if self.decoder is not None:
            self.splitter.close()


def _said(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _closed(
    request: web.BaseRequest, response: web.StreamResponse | None = None
) -> web.StreamResponse:
    """The harness's connection closed after what was forwarded, so a cut answer never looks
    whole: a stream without its last chunk, a body short of its length."""
    if request.transport is not None:
        request.transport.close()
    return response if response is not None else web.Response(status=502)


__all__ = ["HOP_BY_HOP", "WEBSOCKET_REFUSAL", "Forwarder", "Settings", "client_session"]
