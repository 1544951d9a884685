"""Answers hello with a protocol version the runner does not speak."""

from _faux import serve

serve(on_hello=lambda: {"protocol": 99, "implementation": {"name": "bad"}, "areas": "context"})
