"""Exits with code 3, after a word on stderr, when asked to run the broken case."""

import sys

from _faux import Message, serve


def crash(message: Message) -> None:
    sys.stderr.write("crash_on_run: giving up on purpose\n")
    sys.stderr.flush()
    sys.exit(3)


serve(crash)
