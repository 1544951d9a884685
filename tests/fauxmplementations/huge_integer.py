"""Answers the broken case with a seq of 5,000 digits."""

from _faux import Message, serve, write_line


def huge(message: Message) -> None:
    write_line(b'{"seq": ' + b"7" * 5000 + b', "outputs": []}')


serve(huge)
