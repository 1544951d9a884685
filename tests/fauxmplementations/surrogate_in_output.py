"""Answers the broken case with a lone surrogate escaped into its second output: valid JSON, but
no character; the error must name the step."""

import json

from _faux import Message, reference_run, serve, write_line


def surrogate(message: Message) -> None:
    response = reference_run(message)
    response["outputs"][1] = "before \\ud800 after"  # the escape, written by hand below
    write_line(json.dumps(response).replace("\\\\ud800", "\\ud800").encode("utf-8"))


serve(surrogate)
