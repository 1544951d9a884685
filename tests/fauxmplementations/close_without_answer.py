"""An HTTP server that closes the kept-alive connection instead of answering the broken case the
first time it comes, and answers it the second time: a runner that sends a case again would see
it pass."""

from _faux import Message, reference_run
from _faux_http import Handler, serve

seen: list[int] = []


def close_once(handler: Handler, message: Message) -> None:
    if not seen:
        seen.append(message["seq"])
        handler.close_connection = True  # no answer, and no `Connection: close` either
        return
    handler.answer(200, reference_run(message))


serve(close_once)
