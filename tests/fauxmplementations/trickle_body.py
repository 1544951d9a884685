"""An HTTP server that sends the broken case's headers, then its body a byte every half second."""

import json

from _faux import Message, reference_run
from _faux_http import Handler, serve, trickle


def slow_body(handler: Handler, message: Message) -> None:
    data = json.dumps(reference_run(message)).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    trickle(handler, data)


serve(slow_body)
