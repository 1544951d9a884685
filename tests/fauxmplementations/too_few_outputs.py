"""Answers the broken case without the output of its last step."""

from _faux import Message, reference_run, send, serve


def few(message: Message) -> None:
    answer = reference_run(message)
    send({**answer, "outputs": answer["outputs"][:-1]})


serve(few)
