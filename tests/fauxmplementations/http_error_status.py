"""An HTTP server that answers the broken case with status 500."""

from _faux_http import serve

serve(lambda handler, message: handler.answer(500, {"error": "internal trouble"}))
