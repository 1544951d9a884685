"""The reference implementation served over protocol v1: JSON lines on stdin/stdout, or HTTP.

`ctxconf serve --stdio` is what `--impl 'cmd:ctxconf serve --stdio'` starts; `ctxconf serve
--http HOST:PORT` answers `GET /hello` and `POST /run`. Both hand each message to the same
functions as `--impl reference`, so the three transports can be compared on equal terms.
"""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from .reference_impl import ReferenceImplementation

Message = dict[str, Any]


def answer(implementation: ReferenceImplementation, message: object) -> Message | None:
    """The answer to one request; None for stop (and for anything that needs no answer)."""
    if not isinstance(message, Mapping):
        return {"error": 'a request is a JSON object with a "cmd"'}
    command = message.get("cmd")
    if command == "hello":
        return implementation.hello()
    if command == "run":
        return implementation.run(message)
    if command == "stop":
        return None
    return {"seq": message.get("seq"), "error": f"unknown cmd {command!r}"}


def serve_stdio(
    implementation: ReferenceImplementation,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    log: TextIO | None = None,
) -> int:
    """Answer one JSON line with one JSON line until stop or the end of stdin."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    log = log or sys.stderr
    for raw in stdin:
        try:
            message = json.loads(raw)
        except ValueError as error:
            log.write(f"ctxconf serve: ignoring a line that is not JSON: {error}\n")
            log.flush()
            continue
        if isinstance(message, Mapping) and message.get("cmd") == "stop":
            return 0
        reply = answer(implementation, message)
        if reply is not None:
            stdout.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
            stdout.flush()
    return 0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: one connection carries a whole run
    disable_nagle_algorithm = True
    server: _Server

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/hello":
            self._send(200, self.server.implementation.hello())
        else:
            self._send(404, {"error": f"no {self.path}: the protocol has GET /hello, POST /run"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path.rstrip("/") != "/run":
            self._send(404, {"error": f"no {self.path}: the protocol has GET /hello, POST /run"})
            return
        try:
            message = json.loads(body)
        except ValueError as error:
            self._send(400, {"error": f"the body is not JSON: {error}"})
            return
        reply = answer(self.server.implementation, message)
        self._send(200, reply if reply is not None else {})

    def _send(self, status: int, body: Message) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # one line per request would drown the terminal


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], implementation: ReferenceImplementation) -> None:
        super().__init__(address, _Handler)
        self.implementation = implementation


class _Server6(_Server):
    address_family = socket.AF_INET6


def parse_address(text: str) -> tuple[str, int]:
    """`[HOST:]PORT` -> (host, port); the host defaults to 127.0.0.1. ValueError if not one."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{text!r} is not [HOST:]PORT with a port from 0 to 65535")
    return host, int(port)


def make_http_server(
    host: str, port: int, implementation: ReferenceImplementation
) -> ThreadingHTTPServer:
    """A bound server (port 0 picks a free one); `server_address` has the real port."""
    server_class = _Server6 if ":" in host else _Server
    return server_class((host, port), implementation)


def serve_http(
    host: str,
    port: int,
    implementation: ReferenceImplementation,
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
