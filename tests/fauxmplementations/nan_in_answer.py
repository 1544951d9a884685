"""Answers the broken case with NaN, which Python's json writes but JSON has no word for."""

from _faux import Message, serve, write_line


def nan(message: Message) -> None:
    write_line(b'{"seq": 1, "outputs": [NaN]}')


serve(nan)
