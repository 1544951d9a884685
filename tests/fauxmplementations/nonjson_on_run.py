"""Answers the broken case with a line that is not JSON."""

from _faux import serve, write_line

serve(lambda message: write_line(b"this is not JSON"))
