"""Skips the broken case, as the protocol allows."""

from _faux import send, serve

serve(lambda message: send({"seq": message["seq"], "skipped": "not in this harness"}))
