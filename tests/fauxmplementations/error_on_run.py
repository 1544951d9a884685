"""Says, as the protocol allows, that it cannot run the broken case."""

from _faux import send, serve

serve(lambda message: send({"seq": message["seq"], "error": "multiedit is not implemented"}))
