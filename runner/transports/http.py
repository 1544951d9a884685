"""An implementation served over HTTP: `GET /hello` and `POST /run`, the same JSON bodies.

One persistent (keep-alive) connection per transport; a connection that broke is opened again
for the next case. Any status but 200, a refused or reset connection, or a body that is not a
message costs the case being run.

A case's timeout bounds the whole exchange — connecting, sending, the status line, every header
and the body — not each read: a server that trickles its answer a byte at a time, or sends
`100 Continue` without end, is cut off at the deadline by a watchdog that shuts the socket down.
"""

from __future__ import annotations

import http.client
import select
import socket
import time
from urllib.parse import urlsplit

from .base import (
    MAX_MESSAGE_BYTES,
    START_SECONDS,
    CaseFailure,
    Message,
    Watchdog,
    clamp_timeout,
    decode_message,
    encode_message,
)

_JSON = {"Content-Type": "application/json", "Accept": "application/json"}
_CLOSED = (http.client.RemoteDisconnected, http.client.IncompleteRead, BrokenPipeError)


def _set_nodelay(connection: http.client.HTTPConnection) -> None:
    # Small requests and answers on one connection: without this, Nagle's algorithm and delayed
    # acknowledgements can hold each exchange for tens of milliseconds.
    if connection.sock is not None:
        connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _dropped(sock: socket.socket) -> bool:
    """Whether the server has closed an idle kept-alive connection (it reads as ready, with
    nothing or garbage to read: either way the connection cannot carry a request)."""
    poller = select.poll()  # not select.select, which fails on descriptors over 1023
    try:
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(0))
    except (OSError, ValueError):
        return True


class HttpTransport:
    def __init__(
        self,
        url: str,
        *,
        start_timeout: float = START_SECONDS,
        max_body_bytes: int = MAX_MESSAGE_BYTES,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http:// or https:// URL: {url!r}")
        self._url = url
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._start_timeout = start_timeout
        self._max_body = max_body_bytes
        self._connection: http.client.HTTPConnection | None = None

    def hello(self) -> Message:
        return self._exchange("GET", "/hello", None, self._start_timeout)

    def run(self, request: Message, timeout: float) -> Message:
        return self._exchange("POST", "/run", encode_message(request), timeout)

    def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            if connection.sock is not None:
                try:  # wakes a read blocked on it in another thread, as close() alone would not
                    connection.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            connection.close()

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        """A connected connection: the kept-alive one unless the server has closed it since,
        in which case the request was provably never sent on it and a new one is opened."""
        if self._connection is not None:
            sock = self._connection.sock
            if sock is None or _dropped(sock):
                self.close()
        if self._connection is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._connection = cls(self._host, self._port, timeout=timeout)
            self._connection.connect()
            _set_nodelay(self._connection)
        assert self._connection.sock is not None
        self._connection.sock.settimeout(timeout)
        self._connection.timeout = timeout
        return self._connection

    def _exchange(self, method: str, path: str, body: bytes | None, timeout: float) -> Message:
        where = f"{method} {self._prefix}{path}"
        deadline = time.monotonic() + clamp_timeout(timeout)
        watchdog: Watchdog | None = None
        try:
            connection = self._connect(clamp_timeout(timeout))
            assert connection.sock is not None
            watchdog = Watchdog(connection.sock, max(0.0, deadline - time.monotonic()))
            connection.request(method, self._prefix + path, body=body, headers=_JSON)
            response = connection.getresponse()
            if response.length is not None and response.length > self._max_body:
                self.close()
                raise CaseFailure(
                    "error",
                    f"{where}: a response body of {response.length} bytes "
                    f"(at most {self._max_body})",
                )
            expected = response.length
            data = response.read(self._max_body + 1)
            if expected is not None and len(data) < expected:
                raise http.client.IncompleteRead(data, expected - len(data))
        except (OSError, http.client.HTTPException) as error:
            self.close()
            raise self._failure(where, timeout, error, watchdog) from None
        finally:
            if watchdog is not None:
                watchdog.cancel()
        if len(data) > self._max_body:
            self.close()
            raise CaseFailure(
                "error", f"{where}: a response body longer than {self._max_body} bytes"
            )
        if response.will_close or (watchdog is not None and watchdog.fired):
            self.close()
        if response.status != 200:
            excerpt = data[:300].decode("utf-8", "replace").strip()
            raise CaseFailure(
                "error", f"{where}: HTTP {response.status} {response.reason}: {excerpt}"
            )
        return decode_message(data)

    def _failure(
        self, where: str, timeout: float, error: Exception, watchdog: Watchdog | None
    ) -> CaseFailure:
        # Once sent, a request is never sent again: a run that reached the server and got no
        # answer is that case's error, not a reason to run it twice.
        if isinstance(error, TimeoutError) or (watchdog is not None and watchdog.fired):
            return CaseFailure("timeout", f"{where}: no answer within {timeout:g} s")
        if isinstance(error, ConnectionRefusedError):
            return CaseFailure("error", f"{where}: connection refused by {self._url}")
        if isinstance(error, _CLOSED):  # before its base class, ConnectionResetError
            return CaseFailure("error", f"{where}: the connection closed without an answer")
        if isinstance(error, ConnectionResetError):
            return CaseFailure("error", f"{where}: the connection was reset")
        detail = str(error) or type(error).__name__
        return CaseFailure("error", f"{where}: {detail}")
