"""Answers the broken case as the reference does, then exits with code 0 before the next."""

import sys

from _faux import Message, reference_run, send, serve


def answer_and_exit(message: Message) -> None:
    send(reference_run(message))
    sys.exit(0)


serve(answer_and_exit)
