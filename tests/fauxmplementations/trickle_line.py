"""Answers the broken case with a line a byte every half second, never ended."""

import sys
import time

from _faux import Message, serve


def trickle(message: Message) -> None:
    while True:
        sys.stdout.buffer.write(b"[")
        sys.stdout.buffer.flush()
        time.sleep(0.5)


serve(trickle)
