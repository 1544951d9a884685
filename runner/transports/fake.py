"""An in-memory transport for tests: answers come from a function, no process or socket.

    FakeTransport(lambda request: {"seq": request["seq"], "outputs": [...]})

The answer function may raise `CaseFailure` to play a crash, a hang or a broken line.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Message

FAKE_HELLO: Message = {
    "protocol": 1,
    "implementation": {"name": "fake", "version": "0", "language": "python"},
    "areas": ["context"],
}


class FakeTransport:
    def __init__(
        self,
        answer: Callable[[Message], Message],
        *,
        hello: Message | Callable[[], Message] | None = None,
        stderr: str = "",
    ) -> None:
        self._answer = answer
        self._hello = hello if hello is not None else FAKE_HELLO
        self._stderr = stderr
        self.requests: list[Message] = []
        self.closed = False

    def hello(self) -> Message:
        return self._hello() if callable(self._hello) else dict(self._hello)

    def run(self, request: Message, timeout: float) -> Message:
        self.requests.append(request)
        return self._answer(request)

    def close(self) -> None:
        self.closed = True

    def take_stderr(self) -> str:
        return self._stderr
