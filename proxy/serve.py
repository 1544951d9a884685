"""A proxy running: the listening socket, the upstream's client, the record and the console, put
together and taken apart in order (`Proxy`, on a running event loop), or on a thread of its own
for a caller that is not asynchronous (`ProxyThread`: the tests, the benchmark)."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import aiohttp
from aiohttp import web

from ctxconf import __version__

from .exchange import Facts, bare_line, line
from .forward import Forwarder, Settings, client_session
from .live import Live
from .record import Record, new_file
from .redact import SALT_FILE, KeyedHash
from .watcher import Watcher

MAX_BODY = 64 * 1024 * 1024  # the most of one body the record keeps, by default
SHUTDOWN_GRACE = 1.0  # seconds an exchange in flight is given to end when the proxy stops


@dataclass(frozen=True)
class Options:
    upstream: str  # without a trailing slash
    folder: Path
    host: str = "127.0.0.1"
    port: int = 0
    hash_only: bool = False
    body_limit: int = MAX_BODY


def shown(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class Proxy:
    """Start with `await start()` (it answers the URL it listens on), end with `await stop()`.
    A `watcher` adds its words to each exchange's console line."""

    def __init__(self, options: Options, out: TextIO, watcher: Watcher | None = None) -> None:
        self.options = options
        self.watcher = watcher
        self.live = Live(out, watcher)
        options.folder.mkdir(parents=True, exist_ok=True)
        self.keyed = KeyedHash.of_folder(options.folder)
        self.path: Path | None = None
        self.url = ""
        self.record: Record | None = None
        self._runner: web.ServerRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._forwarder: Forwarder | None = None

    async def start(self) -> str:
        options = self.options
        self._session = client_session()
        forwarder = Forwarder(
            Settings(options.upstream, options.body_limit), self._session, self._ended
        )
        self._forwarder = forwarder
        # A compressed request body is passed on compressed: the server does not inflate it.
        server = web.Server(
            forwarder.handle, handler_cancellation=True, access_log=None, auto_decompress=False
        )
        self._runner = web.ServerRunner(server, shutdown_timeout=SHUTDOWN_GRACE)
        await self._runner.setup()
        try:
            await web.TCPSite(self._runner, options.host, options.port).start()
        except BaseException:
            await self._close_parts()
            raise
        host, port = self._runner.addresses[0][:2]
        self.url = shown(str(host), int(port))
        self.path = new_file(options.folder)
        self.record = Record(
            self.path,
            {
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "ctxconf": __version__,
                "upstream": options.upstream,
                "listen": self.url,
                "hash_only": options.hash_only,
                "body_limit": options.body_limit,
                "salt": SALT_FILE,
            },
        )
        if self.watcher is not None:
            self.watcher.started(self.path)
        return self.url

    def _ended(self, facts: Facts) -> None:
        if self.record is None:
            return
        hash_only = self.options.hash_only

        def make() -> dict[str, Any]:
            try:
                return line(facts, self.keyed, hash_only)
            except Exception as e:  # never a lost exchange: what is sure of it is kept
                return bare_line(facts, type(e).__name__)

        self.record.submit(make, self.live.show)

    @property
    def forwarded(self) -> int:
        """How many exchanges have started."""
        return 0 if self._forwarder is None else self._forwarder.count

    async def stop(self, footer: bool = True) -> None:
        """Stop listening, give the exchanges in flight a moment, then close the record with
        its last line (`footer`: False leaves it out, as a crash would)."""
        if self._forwarder is not None:
            self._forwarder.stopping = True
        await self._close_parts()
        if self.record is not None:
            self.record.close({**self.live.counts()} if footer else None)
            self.record = None

    async def _close_parts(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._session is not None:
            await self._session.close()
            self._session = None


class ProxyThread:
    """A proxy on an event loop in a thread of its own; a context manager."""

    def __init__(self, options: Options, out: TextIO, watcher: Watcher | None = None) -> None:
        self.proxy = Proxy(options, out, watcher)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    @property
    def url(self) -> str:
        return self.proxy.url

    def __enter__(self) -> ProxyThread:
        self._thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self.proxy.start(), self._loop).result()
        except BaseException:
            self._end()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            asyncio.run_coroutine_threadsafe(self.proxy.stop(), self._loop).result()
        finally:
            self._end()

    def _end(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


__all__ = ["MAX_BODY", "Options", "Proxy", "ProxyThread", "shown"]
