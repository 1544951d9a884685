"""Answers the broken case with one output more than it has steps."""

from _faux import Message, reference_run, send, serve


def many(message: Message) -> None:
    answer = reference_run(message)
    send({**answer, "outputs": [*answer["outputs"], "one more"]})


serve(many)
