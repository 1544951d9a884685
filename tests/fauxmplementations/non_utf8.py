"""Answers the broken case with a line holding bytes that are not UTF-8."""

from _faux import serve, write_line

serve(lambda message: write_line(b'{"seq": 1, "outputs": ["caf\xe9"]}'))
