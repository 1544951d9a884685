"""An HTTP server that answers hello a byte every half second."""

import json

from _faux import reference_hello
from _faux_http import Handler, serve, trickle


def slow_hello(handler: Handler) -> None:
    data = json.dumps(reference_hello()).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    trickle(handler, data)


serve(on_hello=slow_hello)
