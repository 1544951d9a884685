"""An implementation served over protocol v1: JSON lines on stdin/stdout, or HTTP.

`ctxconf serve --stdio` is what `--impl 'cmd:ctxconf serve --stdio'` starts; `ctxconf serve
--http HOST:PORT` answers `GET /hello` and `POST /run`. Both hand each message to the same
functions as `--impl reference` (or, with `--module`, to a Python module's), so the transports can
be compared on equal terms.

Every request is untrusted. A malformed one (not JSON, nesting too deeply, not an object, a step
that is not an object, too long) is answered with an `error` message — over HTTP with a 4xx status
— and serving goes on. The HTTP server gives each connection a thread, a listen backlog of
`LISTEN_BACKLOG`, a deadline of `REQUEST_SECONDS` for each request to arrive whole, and closes a
connection idle for `IDLE_SECONDS`.
"""

from __future__ import annotations

import io
import json
import socket
import sys
from collections.abc import Callable, Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO, cast
from urllib.parse import urlsplit

from ctxconf.userfiles.limits import LimitError, dumps_checked, parse_json

from .reference_impl import ReferenceImplementation
from .transports.base import (
    IDLE_SECONDS,
    LISTEN_BACKLOG,
    MAX_REQUEST_BYTES,
    REQUEST_SECONDS,
    Watchdog,
)
from .transports.python import Implementation

Message = dict[str, Any]
_ROUTES = {"/hello": "GET", "/run": "POST"}
_NO_SUCH_PATH = "the protocol has GET /hello and POST /run"


class BadRequest(Exception):
    """A request that is no protocol message; the message says why, for the client."""

    def __init__(self, message: str, seq: object = None) -> None:
        super().__init__(message)
        self.seq = seq  # the request's, when it has one: the answer carries it back

    def answer(self) -> Message:
        return {"error": str(self)} if self.seq is None else {"seq": self.seq, "error": str(self)}


def parse_request(data: bytes) -> Message:
    """One request's bytes as a protocol message, or BadRequest saying what is wrong."""
    try:
        message = parse_json(data, exact=True)  # numbers by their exact value
    except LimitError as error:
        raise BadRequest(f"the request is refused: {error}") from None
    except ValueError as error:  # JSONDecodeError, and UnicodeDecodeError for bytes
        raise BadRequest(f"the request is not JSON: {error}") from None
    if not isinstance(message, dict):
        raise BadRequest('a request is a JSON object with a "cmd"')
    if message.get("cmd") == "run":
        case = message.get("case")
        steps = case.get("steps") if isinstance(case, dict) else None
        if isinstance(steps, list):
            for index, step in enumerate(steps):
                if not isinstance(step, dict):
                    raise BadRequest(
                        f"/case/steps/{index} is not a JSON object", message.get("seq")
                    )
    return message


def _seq(message: Message) -> Message:
    return {"seq": message["seq"]} if "seq" in message else {}


def answer(implementation: Implementation, message: Message) -> Message | None:
    """The answer to one request; None for stop. What the implementation raises is an error
    answer, so one bad case never stops the server."""
    command = message.get("cmd")
    if command == "stop":
        return None
    try:
        if command == "hello":
            return implementation.hello()
        if command == "run":
            return implementation.run(message)
    except Exception as error:  # the implementation's failure is this request's answer
        return {
            **_seq(message),
            "error": f"the implementation raised {type(error).__name__}: {error}",
        }
    return {**_seq(message), "error": f"unknown cmd {command!r}"}


def encode_answer(reply: Message, request: Message) -> bytes:
    """The reply as JSON, or an error answer where JSON cannot carry it within the limits."""
    try:
        return dumps_checked(reply).encode("utf-8")
    except (ValueError, TypeError) as error:
        refusal = {**_seq(request), "error": f"the implementation's answer is refused: {error}"}
        return json.dumps(refusal).encode("utf-8")


def _read_line(stdin: BinaryIO) -> bytes | None:
    """The next line, b"" if it is longer than MAX_REQUEST_BYTES (the rest of it is skipped),
    None at the end of input."""
    line = stdin.readline(MAX_REQUEST_BYTES + 1)
    if not line:
        return None
    if len(line) <= MAX_REQUEST_BYTES or line.endswith(b"\n"):
        return line
    while (rest := stdin.readline(1 << 20)) and not rest.endswith(b"\n"):
        pass
    return b""


def serve_stdio(
    implementation: Implementation,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
) -> int:
    """Answer one JSON line with one JSON line until stop or the end of stdin."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    while (raw := _read_line(stdin)) is not None:
        if raw.isspace():
            continue  # a blank line between messages is no request
        try:
            if not raw:  # what _read_line makes of a line too long
                raise BadRequest(f"a line longer than {MAX_REQUEST_BYTES} bytes")
            message = parse_request(raw)
        except BadRequest as error:
            data = json.dumps(error.answer()).encode("utf-8")
        else:
            reply = answer(implementation, message)
            if reply is None:
                return 0
            data = encode_answer(reply, message)
        stdout.write(data + b"\n")
        stdout.flush()
    return 0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: one connection carries a whole run
    disable_nagle_algorithm = True
    timeout = REQUEST_SECONDS  # each read and write; the watchdog bounds the whole request
    server: _Server

    def handle_one_request(self) -> None:
        try:
            self.connection.settimeout(IDLE_SECONDS)
            # rfile is a BufferedReader (StreamRequestHandler's rbufsize is -1)
            if not cast(io.BufferedReader, self.rfile).peek(1):  # the client closed it
                self.close_connection = True
                return
            self.connection.settimeout(REQUEST_SECONDS)
        except OSError:  # idle for too long, or reset
            self.close_connection = True
            return
        self._watchdog: Watchdog | None = Watchdog(self.connection, REQUEST_SECONDS)
        try:
            super().handle_one_request()
        except OSError:  # the deadline passed, or the client went away
            self.close_connection = True
        finally:
            self._disarm()

    def _disarm(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            if self._watchdog.fired:
                self.close_connection = True
            self._watchdog = None

    def do_GET(self) -> None:
        if self._route("GET"):
            self._disarm()  # the implementation's time is not the client's
            reply = answer(self.server.implementation, {"cmd": "hello"}) or {}
            self._send(200, encode_answer(reply, {}))

    def do_POST(self) -> None:
        if not self._route("POST"):
            return
        length = self._body_length()
        if length is None:
            return
        body = self.rfile.read(length)
        if len(body) < length:  # the client stopped sending, or took too long
            self.close_connection = True
            return
        self._disarm()
        try:
            message = parse_request(body)
        except BadRequest as error:
            self._error(400, str(error), body=error.answer())
            return
        reply = answer(self.server.implementation, message)
        self._send(200, encode_answer(reply or {}, message))

    def _wrong_method(self) -> None:
        self._route(self.command)

    do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _wrong_method

    def _route(self, method: str) -> bool:
        """Whether this is a request the protocol has; if not, it is answered 404 or 405."""
        path = urlsplit(self.path).path.rstrip("/")
        if path not in _ROUTES:
            self._error(404, f"no {path or '/'}: {_NO_SUCH_PATH}")
            return False
        if _ROUTES[path] != method:
            self._error(405, f"{method} {path}: {_NO_SUCH_PATH}", {"Allow": _ROUTES[path]})
            return False
        return True

    def _body_length(self) -> int | None:
        """The body's length from Content-Length; None once a refusal is sent."""
        if self.headers.get("Transfer-Encoding"):
            self._error(411, "send the body with a Content-Length, not a Transfer-Encoding")
            return None
        values = self.headers.get_all("Content-Length") or []
        if not values:
            self._error(411, "a POST needs a Content-Length")
            return None
        if len(set(values)) > 1 or not values[0].strip().isdigit():
            self._error(400, f"a bad Content-Length: {', '.join(values)[:100]}")
            return None
        length = int(values[0])
        if length > MAX_REQUEST_BYTES:
            self._error(413, f"a body of {length} bytes (at most {MAX_REQUEST_BYTES})")
            return None
        return length

    def handle_expect_100(self) -> bool:
        if self.command == "POST" and self._body_length() is None:
            return False
        return super().handle_expect_100()

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # http.server's own refusals (a bad request line, too many headers, …) in JSON too
        self._error(code, message or HTTPStatus(code).phrase)

    def _error(
        self,
        status: int,
        message: str,
        headers: Mapping[str, str] | None = None,
        body: Message | None = None,
    ) -> None:
        self.close_connection = True  # the rest of what the client sent is never read
        data = json.dumps(body or {"error": message}).encode("utf-8")
        self._send(status, data, headers)

    def _send(self, status: int, data: bytes, headers: Mapping[str, str] | None = None) -> None:
        if self.request_version == "HTTP/0.9":
            # http.server's guess for a request line too broken to name its version; no client
            # speaks 0.9, so the answer gets its status line and headers all the same
            self.request_version = "HTTP/1.0"
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # one line per request would drown the terminal


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address: tuple[str, int], implementation: Implementation) -> None:
        super().__init__(address, _Handler)
        self.implementation = implementation

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that broke its connection is no news; the server goes on


class _Server6(_Server):
    address_family = socket.AF_INET6


def parse_address(text: str) -> tuple[str, int]:
    """`[HOST:]PORT` -> (host, port); the host defaults to 127.0.0.1. ValueError if not one."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{text!r} is not [HOST:]PORT with a port from 0 to 65535")
    return host, int(port)


def make_http_server(host: str, port: int, implementation: Implementation) -> ThreadingHTTPServer:
    """A bound server (port 0 picks a free one); `server_address` has the real port."""
    server_class = _Server6 if ":" in host else _Server
    return server_class((host, port), implementation)


def serve_http(
    host: str,
    port: int,
    implementation: Implementation,
    on_ready: Callable[[str], None] | None = None,
) -> int:
    """Serve until interrupted; `on_ready` gets the URL once the socket listens."""
    server = make_http_server(host, port, implementation)
    address = server.server_address
    bound_host = address[0].decode() if isinstance(address[0], bytes) else str(address[0])
    bound_port = address[1]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    if on_ready is not None:
        on_ready(f"http://{shown}:{bound_port}")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def reference(spec_dir: Path | None = None) -> ReferenceImplementation:
    return ReferenceImplementation(spec_dir)
