"""`python:MODULE` and `reference`: an implementation in this process, called as functions.

The module (or object) has `hello()` and `run(request)`, taking and returning the same dicts the
other transports carry as JSON; both go through a JSON round trip, so the implementation can
neither change the runner's case nor answer with something JSON cannot carry. A call runs on a
worker thread so that a hang can be timed out; the hung thread is abandoned (a thread cannot be
killed) and the next case gets a new one.

That timeout holds only while the implementation lets go of the GIL now and then, as Python code
does. A call stuck in C code that holds the GIL (a regular expression backtracking without end)
stops the whole runner until it returns; `pyproc:MODULE` runs the module in a child process
instead, where a hang is killed like any `cmd:` implementation's.
"""

from __future__ import annotations

import queue
import threading
import traceback
from collections.abc import Callable
from typing import Any, Protocol

from ctxconf.userfiles import limits
from ctxconf.userfiles.limits import LimitError, dumps_checked, parse_json

from .base import START_SECONDS, CaseFailure, Message, check_characters, clamp_timeout


class Implementation(Protocol):
    def hello(self) -> Message: ...

    def run(self, request: Message) -> Message: ...


_Call = tuple[Callable[[], Any], "queue.Queue[tuple[bool, Any]]"]


class _Worker:
    """One daemon thread running calls in turn; daemon, so a hung call never blocks exit."""

    def __init__(self) -> None:
        self._calls: queue.Queue[_Call | None] = queue.Queue()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def call(self, function: Callable[[], Any], timeout: float) -> tuple[bool, Any]:
        """(True, value) or (False, formatted exception); raises TimeoutError."""
        answer: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)
        self._calls.put((function, answer))
        try:
            return answer.get(timeout=clamp_timeout(timeout))
        except queue.Empty:
            raise TimeoutError from None

    def stop(self) -> None:
        self._calls.put(None)

    def _serve(self) -> None:
        while (call := self._calls.get()) is not None:
            function, answer = call
            try:
                answer.put((True, function()))
            except BaseException:
                answer.put((False, traceback.format_exc()))


class PythonTransport:
    def __init__(
        self, implementation: Implementation, *, start_timeout: float = START_SECONDS
    ) -> None:
        self._implementation = implementation
        self._start_timeout = start_timeout
        self._worker = _Worker()

    def hello(self) -> Message:
        return self._call(self._implementation.hello, self._start_timeout, "hello()")

    def run(self, request: Message, timeout: float) -> Message:
        # Through JSON, as every transport sends it: numbers keep their exact value.
        copy = parse_json(limits.dumps(request), exact=True)
        return self._call(lambda: self._implementation.run(copy), timeout, "run()")

    def close(self) -> None:
        self._worker.stop()

    def _call(self, function: Callable[[], Any], timeout: float, name: str) -> Message:
        try:
            ok, value = self._worker.call(function, timeout)
        except TimeoutError:
            self._worker = _Worker()  # the old one is stuck in the call; leave it behind
            raise CaseFailure(
                "timeout", f"{name} did not return within {timeout:g} s (its thread was abandoned)"
            ) from None
        if not ok:
            last = value.strip().splitlines()[-1]
            raise CaseFailure("crash", f"{name} raised {last}", stderr=value)
        try:
            text = dumps_checked(value)
            response = parse_json(text)  # the same limits as a message read from a pipe
        except LimitError as error:
            raise CaseFailure("error", f"{name} returned what is refused: {error}") from None
        except (TypeError, ValueError, RecursionError) as error:
            raise CaseFailure("error", f"{name} returned what JSON cannot carry: {error}") from None
        if "\\ud" in text.lower():  # non-ASCII is escaped: look closer only then
            check_characters(response)
        if not isinstance(response, dict):
            raise CaseFailure(
                "error", f"not a protocol message: {name} returned {type(value).__name__}"
            )
        return response
