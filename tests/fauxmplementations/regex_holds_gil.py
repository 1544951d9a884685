"""A python: module that, on the broken case, runs a regular expression that backtracks for
hours inside C code holding the GIL: no thread of the same process runs meanwhile."""

import re

from _faux import BROKEN_SEQ, Message, reference_hello, reference_run


def hello() -> Message:
    return reference_hello()


def run(request: Message) -> Message:
    if request.get("seq") == BROKEN_SEQ:
        re.match(r"(a+)+$", "a" * 64 + "b")
    return reference_run(request)
