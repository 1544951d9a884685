"""Answers the broken case with a line that never ends, written as fast as the pipe takes it."""

import sys

from _faux import Message, serve


def endless(message: Message) -> None:
    block = b"x" * (1 << 20)
    try:
        while True:
            sys.stdout.buffer.write(block)
    except OSError:  # the runner gave up and closed the pipe
        pass


serve(endless)
