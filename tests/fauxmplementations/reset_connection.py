"""An HTTP server that resets the connection instead of answering the broken case."""

import socket
import struct
from http.server import BaseHTTPRequestHandler
from typing import Any

from _faux_http import serve


def reset(handler: BaseHTTPRequestHandler, message: dict[str, Any]) -> None:
    # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.connection.close()
    handler.close_connection = True


serve(reset)
