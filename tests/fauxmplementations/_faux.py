"""Shared by the fauxmplementations: the reference's answers over JSON lines, with one hook to
misbehave on the case whose seq is BROKEN_SEQ (the second case of a run)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from decimal import Decimal  # numbers by exact value, as the reference reads them
from typing import Any

from ctxconf.runner.reference_impl import hello as reference_hello
from ctxconf.runner.reference_impl import run as reference_run

__all__ = [
    "BROKEN_SEQ",
    "Message",
    "reference_hello",
    "reference_run",
    "send",
    "serve",
    "write_line",
]

BROKEN_SEQ = 1

Message = dict[str, Any]


def write_line(data: bytes) -> None:
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.buffer.flush()


def send(message: object) -> None:
    write_line(json.dumps(message).encode("utf-8"))


def serve(
    on_broken_run: Callable[[Message], None] | None = None,
    on_hello: Callable[[], object] | None = None,
) -> None:
    """Answer as the reference does, except `on_broken_run` answers (or not) the broken case."""
    for raw in sys.stdin.buffer:
        message = json.loads(raw, parse_float=Decimal)
        command = message.get("cmd")
        if command == "hello":
            send(on_hello() if on_hello is not None else reference_hello())
        elif command == "run":
            if on_broken_run is not None and message.get("seq") == BROKEN_SEQ:
                on_broken_run(message)
            else:
                send(reference_run(message))
        elif command == "stop":
            return
