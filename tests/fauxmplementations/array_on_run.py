"""Answers the broken case with JSON that is no protocol message: an array."""

from _faux import send, serve

serve(lambda message: send([1, 2, 3]))
