"""Answers the broken case with both outputs and an error."""

from _faux import reference_run, send, serve


def both(message: dict) -> None:
    send({**reference_run(message), "error": "and also an error"})


serve(both)
