"""Answers the broken case with both outputs and an error."""

from _faux import Message, reference_run, send, serve


def both(message: Message) -> None:
    send({**reference_run(message), "error": "and also an error"})


serve(both)
