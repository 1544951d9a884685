"""Answers the broken case with a line longer than the runner reads (64 MiB)."""

import sys

from _faux import Message, serve


def huge(message: Message) -> None:
    block = b"x" * (1 << 20)
    for _ in range(65):
        sys.stdout.buffer.write(block)
    sys.stdout.buffer.write(b"\n")
    sys.stdout.buffer.flush()


serve(huge)
