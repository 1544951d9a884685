"""Answers the broken case with the right outputs under the wrong seq."""

from _faux import reference_run, send, serve


def wrong(message: dict) -> None:
    answer = reference_run(message)
    send({**answer, "seq": answer["seq"] + 100})


serve(wrong)
