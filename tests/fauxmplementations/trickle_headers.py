"""An HTTP server that answers the broken case with a status line, then a header that never ends,
a byte every half second."""

from _faux import Message
from _faux_http import Handler, serve, trickle


def slow_headers(handler: Handler, message: Message) -> None:
    trickle(handler, b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 10_000)


serve(slow_headers)
