"""An HTTP server that resets the connection instead of answering the broken case."""

import socket
import struct

from _faux import Message
from _faux_http import Handler, serve


def reset(handler: Handler, message: Message) -> None:
    # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.connection.close()
    handler.close_connection = True


serve(reset)
