"""An HTTP server that answers the broken case with 100,000 arrays nested inside each other."""

from _faux import Message
from _faux_http import Handler, serve


def deep(handler: Handler, message: Message) -> None:
    data = b"[" * 100_000 + b"]" * 100_000
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


serve(deep)
