"""Answers the broken case with the right outputs under the wrong seq."""

from _faux import Message, reference_run, send, serve


def wrong(message: Message) -> None:
    answer = reference_run(message)
    send({**answer, "seq": answer["seq"] + 100})


serve(wrong)
