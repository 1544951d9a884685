"""A python: module whose run() returns 100,000 lists nested inside each other on the broken
case."""

from typing import Any

from _faux import BROKEN_SEQ, Message, reference_hello, reference_run


def hello() -> Message:
    return reference_hello()


def run(request: Message) -> Any:
    if request.get("seq") != BROKEN_SEQ:
        return reference_run(request)
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    return deep
