"""An implementation served over HTTP: `GET /hello` and `POST /run`, the same JSON bodies.

One persistent (keep-alive) connection per transport; a connection that broke is opened again
for the next case. Any status but 200, a refused or reset connection, or a body that is not a
message costs the case being run.
"""

from __future__ import annotations

import http.client
import socket
from urllib.parse import urlsplit

from .base import MAX_MESSAGE_BYTES, CaseFailure, Message, decode_message, encode_message

_JSON = {"Content-Type": "application/json", "Accept": "application/json"}


def _set_nodelay(connection: http.client.HTTPConnection) -> None:
    # Small requests and answers on one connection: without this, Nagle's algorithm and delayed
    # acknowledgements can hold each exchange for tens of milliseconds.
    if connection.sock is not None:
        connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class HttpTransport:
    def __init__(
        self, url: str, *, timeout: float, max_body_bytes: int = MAX_MESSAGE_BYTES
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http:// or https:// URL: {url!r}")
        self._url = url
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._timeout = timeout
        self._max_body = max_body_bytes
        self._connection: http.client.HTTPConnection | None = None
        self._reused = False

    def hello(self) -> Message:
        return self._request("GET", "/hello", None, self._timeout)

    def run(self, request: Message, timeout: float) -> Message:
        return self._request("POST", "/run", encode_message(request), timeout)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self._connection is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._connection = cls(self._host, self._port, timeout=timeout)
            self._reused = False
        elif self._connection.sock is not None:
            self._connection.sock.settimeout(timeout)
        self._connection.timeout = timeout
        return self._connection

    def _request(self, method: str, path: str, body: bytes | None, timeout: float) -> Message:
        try:
            return self._exchange(method, path, body, timeout)
        except (ConnectionResetError, http.client.RemoteDisconnected, BrokenPipeError):
            if not self._reused:
                raise CaseFailure("error", f"{method} {path}: the connection was reset") from None
        # A kept-alive connection the server has since closed is not the case's fault: try once
        # more on a new connection (a run is a fresh session, so sending it again is harmless).
        try:
            return self._exchange(method, path, body, timeout)
        except (ConnectionResetError, http.client.RemoteDisconnected, BrokenPipeError):
            raise CaseFailure("error", f"{method} {path}: the connection was reset") from None

    def _exchange(self, method: str, path: str, body: bytes | None, timeout: float) -> Message:
        where = f"{method} {self._prefix}{path}"
        reused = self._reused
        connection = self._connect(timeout)
        try:
            connection.request(method, self._prefix + path, body=body, headers=_JSON)
            _set_nodelay(connection)
            response = connection.getresponse()
            data = response.read(self._max_body + 1)
        except (ConnectionResetError, http.client.RemoteDisconnected, BrokenPipeError):
            self.close()
            self._reused = reused
            raise
        except TimeoutError:
            self.close()
            raise CaseFailure("timeout", f"{where}: no answer within {timeout:g} s") from None
        except ConnectionRefusedError:
            self.close()
            raise CaseFailure("error", f"{where}: connection refused by {self._url}") from None
        except (OSError, http.client.HTTPException) as error:
            self.close()
            detail = str(error) or type(error).__name__
            raise CaseFailure("error", f"{where}: {detail}") from None
        if len(data) > self._max_body:
            self.close()
            raise CaseFailure(
                "error", f"{where}: a response body longer than {self._max_body} bytes"
            )
        if response.will_close:
            self.close()
        else:
            self._reused = True
        if response.status != 200:
            excerpt = data[:300].decode("utf-8", "replace").strip()
            raise CaseFailure(
                "error", f"{where}: HTTP {response.status} {response.reason}: {excerpt}"
            )
        return decode_message(data)
