"""Answers the broken case with 1e400, a number too large for a double."""

from _faux import Message, serve, write_line


def overflow(message: Message) -> None:
    write_line(b'{"seq": 1e400, "outputs": []}')


serve(overflow)
