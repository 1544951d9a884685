"""Answers the broken case with 100,000 arrays nested inside each other."""

from _faux import Message, serve, write_line


def deep(message: Message) -> None:
    write_line(b"[" * 100_000 + b"]" * 100_000)


serve(deep)
