"""Shared by the HTTP fauxmplementations: the reference over HTTP, broken on seq BROKEN_SEQ."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from decimal import Decimal  # numbers by exact value, as the reference reads them
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from _faux import BROKEN_SEQ, Message, reference_hello, reference_run


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    on_broken_run: Callable[[Handler, Message], None] | None = None  # set by serve()
    on_hello: Callable[[Handler], None] | None = None  # set by serve()

    def do_GET(self) -> None:
        if Handler.on_hello is not None:
            Handler.on_hello(self)
        else:
            self.answer(200, reference_hello())

    def do_POST(self) -> None:
        message = json.loads(
            self.rfile.read(int(self.headers["Content-Length"])), parse_float=Decimal
        )
        if message.get("seq") == BROKEN_SEQ and Handler.on_broken_run is not None:
            Handler.on_broken_run(self, message)
        else:
            self.answer(200, reference_run(message))

    def answer(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def trickle(handler: Handler, data: bytes, pause: float = 0.5) -> None:
    """Write `data` a byte at a time, until the client gives up (a broken pipe ends it)."""
    try:
        for byte in data:
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(pause)
    except OSError:
        pass
    handler.close_connection = True


def serve(
    on_broken_run: Callable[[Handler, Message], None] | None = None,
    on_hello: Callable[[Handler], None] | None = None,
) -> None:
    Handler.on_broken_run = on_broken_run
    Handler.on_hello = on_hello
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
