"""The cases of a run spread over `--jobs` transports, their results handed on in case order, and
every transport closed however the run ends."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from .case_run import greet, run_case
from .cases import Case
from .protocol import Hello
from .results import CaseResult, ResultsWriter
from .transports import Transport, TransportFactory
from .verdicts import Judge

OnCase = Callable[[CaseResult], None]


def start_all(factory: TransportFactory, count: int, started: list[Transport]) -> Hello:
    """Make `count` transports and greet each, all at once (starting a process takes a while);
    the first one's hello. Every transport made is in `started`, for the caller to close."""
    for _ in range(count):
        started.append(factory())
    if count == 1:
        return greet(started[0])
    with ThreadPoolExecutor(max_workers=count) as pool:
        greetings = [pool.submit(greet, transport) for transport in started]
    hellos = [greeting.result() for greeting in greetings]  # any one that failed raises here
    return hellos[0]


class Ordered:
    """Hands results to the file and the caller in case order, whatever order they finish in."""

    def __init__(self, count: int, writer: ResultsWriter | None, on_case: OnCase | None) -> None:
        self.results: list[CaseResult | None] = [None] * count
        self._next = 0
        self._writer = writer
        self._on_case = on_case
        self._lock = threading.Lock()
        self._stopped = False

    def stop(self) -> tuple[CaseResult, ...]:
        """Take no more results; the ones in, in case order."""
        with self._lock:
            self._stopped = True
            return tuple(result for result in self.results if result is not None)

    def put(self, index: int, result: CaseResult) -> None:
        with self._lock:
            if self._stopped:  # an interrupted run keeps the cases done by then, no later one
                return
            self.results[index] = result
            if self._on_case is not None:
                self._on_case(result)
            while self._next < len(self.results) and self.results[self._next] is not None:
                if self._writer is not None:
                    done = self.results[self._next]
                    assert done is not None
                    self._writer.add(done)
                self._next += 1


def run_all(
    cases: Sequence[Case],
    transports: list[Transport],
    hello: Hello,
    judge: Judge,
    timeout: float,
    ordered: Ordered,
) -> None:
    if len(transports) == 1:
        for index, case in enumerate(cases):
            ordered.put(index, run_case(transports[0], index, case, hello, judge, timeout))
        return
    idle: queue.Queue[Transport] = queue.Queue()
    for transport in transports:
        idle.put(transport)

    def one(index: int, case: Case) -> None:
        transport = idle.get()
        try:
            ordered.put(index, run_case(transport, index, case, hello, judge, timeout))
        finally:
            idle.put(transport)

    pool = ThreadPoolExecutor(max_workers=len(transports))
    try:
        for future in [pool.submit(one, index, case) for index, case in enumerate(cases)]:
            future.result()  # a runner bug surfaces here instead of being lost
    except BaseException:
        # Interrupted: keep what is done, start no more, and end the cases under way by closing
        # their implementations (killing their processes) rather than waiting for them.
        ordered.stop()
        close_all(transports)
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()


def close_all(transports: list[Transport]) -> bool:
    """Close every transport once, even if one fails to close or an interruption comes
    meanwhile (every process is still killed); whether one came."""
    interrupted = False
    while transports:
        transport = transports.pop()
        try:
            transport.close()
        except KeyboardInterrupt:
            interrupted = True
        except Exception:  # one broken close must not leave the others open
            pass
    return interrupted
