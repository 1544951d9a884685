"""An HTTP server that answers the broken case with `100 Continue`, again and again, never more."""

import time

from _faux import Message
from _faux_http import Handler, serve


def endless_continue(handler: Handler, message: Message) -> None:
    try:
        while True:
            handler.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            handler.wfile.flush()
            time.sleep(0.01)
    except OSError:
        handler.close_connection = True


serve(endless_continue)
