"""A conformance run: load and choose the cases, greet the implementation, run every case,
judge the answers, and write the results as they come.

    results = run_suite(RunOptions(impl="cmd:ctxconf serve --stdio"), results_path=Path("r.json"))

Only unusable input or an implementation that cannot start raises (a `RunnerError`); whatever an
implementation does wrong during a case becomes that case's verdict.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ctxconf import __version__

from .cases import Case, default_case_files, load_cases, select_cases
from .errors import ImplementationStartError, UsageError
from .expected_failures import NONE, load_expected_failures
from .protocol import Hello, ProtocolError, parse_hello, parse_run_response, run_request
from .results import (
    CaseResult,
    CaseVerdict,
    Footer,
    Header,
    ImplementationInfo,
    Options,
    Results,
    ResultsWriter,
    StepResult,
    exit_code,
    totals,
)
from .selection import parse_selector
from .transports import CaseFailure, KeepsStderr, Transport, TransportFactory, transport_factory
from .transports.base import STDERR_KEPT_BYTES
from .verdicts import Judge


@dataclass(frozen=True)
class RunOptions:
    impl: str
    spec_dir: Path | None = None  # None: the bundled spec
    case_files: tuple[Path, ...] = ()  # (): every conformance/*.json of the spec folder
    areas: tuple[str, ...] = ()
    k: str | None = None
    jobs: int = 1
    timeout: float = 10.0
    expected_failures: Path | None = None
    accept_equivalent_diffs: bool = False


OnCase = Callable[[CaseResult], None]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _spec_version(spec_dir: Path, fallback: str) -> str:
    try:
        version = json.loads((spec_dir / "loop.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError, TypeError):
        return fallback
    return str(version)


def greet(transport: Transport) -> Hello:
    """The implementation's hello, or ImplementationStartError saying why there is none."""
    try:
        return parse_hello(transport.hello())
    except (CaseFailure, ProtocolError) as error:
        stderr = transport.take_stderr() if isinstance(transport, KeepsStderr) else ""
        if isinstance(error, CaseFailure):
            stderr = error.stderr or stderr
        transport.close()
        detail = f"\n--- its stderr:\n{stderr.rstrip()}" if stderr.strip() else ""
        raise ImplementationStartError(
            f"the implementation did not answer hello: {error.message}{detail}"
        ) from None


def _start(factory: TransportFactory, count: int, started: list[Transport]) -> Hello:
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


def run_case(
    transport: Transport, seq: int, case: Case, hello: Hello, judge: Judge, timeout: float
) -> CaseResult:
    """Send one case and judge what comes back; a misbehaving implementation costs this case."""
    started = time.perf_counter()
    verdict: CaseVerdict
    message = ""
    stderr = ""
    steps: tuple[StepResult, ...]
    if case.area not in hello.areas:
        verdict, steps = "skipped", judge.steps(case, None)
        message = f"the implementation does not list the area {case.area!r} in its hello"
    else:
        request = run_request(seq, case.area, case.data)
        try:
            reply = parse_run_response(transport.run(request, timeout), seq, len(case.steps))
        except CaseFailure as failure:
            verdict, message, stderr = failure.kind, failure.message, failure.stderr
            steps = judge.steps(case, None)
        except ProtocolError as error:
            verdict, message = "error", error.message
            steps = judge.steps(case, error.outputs)
        else:
            if reply.kind == "outputs":
                verdict, steps = judge.answered(case, reply.outputs)
            elif reply.kind == "error":
                verdict, steps = "error", judge.steps(case, None)
                message = f"the implementation answered with an error: {reply.message}"
            else:
                verdict, steps = "skipped", judge.steps(case, None)
                message = reply.message
    if isinstance(transport, KeepsStderr):
        stderr = (stderr + transport.take_stderr())[-STDERR_KEPT_BYTES:]
    result = CaseResult(
        area=case.area,
        file=case.file,
        name=case.name,
        description=case.description,
        rules=case.rules,
        verdict=verdict,
        message=message,
        duration=time.perf_counter() - started,
        stderr=stderr,
        steps=steps,
    )
    return judge.settle(result)


class _Ordered:
    """Hands results to the file and the caller in case order, whatever order they finish in."""

    def __init__(self, count: int, writer: ResultsWriter | None, on_case: OnCase | None) -> None:
        self.results: list[CaseResult | None] = [None] * count
        self._next = 0
        self._writer = writer
        self._on_case = on_case
        self._lock = threading.Lock()

    def put(self, index: int, result: CaseResult) -> None:
        with self._lock:
            self.results[index] = result
            if self._on_case is not None:
                self._on_case(result)
            while self._next < len(self.results) and self.results[self._next] is not None:
                if self._writer is not None:
                    done = self.results[self._next]
                    assert done is not None
                    self._writer.add(done)
                self._next += 1


def _run_all(
    cases: Sequence[Case],
    transports: Sequence[Transport],
    hello: Hello,
    judge: Judge,
    timeout: float,
    ordered: _Ordered,
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
        # Interrupted: finish the cases under way (each bounded by its timeout), start no more.
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()


def run_suite(
    options: RunOptions,
    *,
    results_path: Path | None = None,
    on_start: Callable[[int], None] | None = None,
    on_case: OnCase | None = None,
    on_warning: Callable[[str], None] | None = None,
    factory: TransportFactory | None = None,
) -> Results:
    """Run the chosen cases against `options.impl` (or the transports `factory` makes)."""
    if options.jobs < 1:
        raise UsageError(f"-j {options.jobs}: the number of workers is at least 1")
    if not options.timeout > 0:
        raise UsageError(
            f"--timeout {options.timeout}: the timeout is a positive number of seconds"
        )
    from ctxconf.paths import bundled_spec_dir

    spec_dir = (options.spec_dir or bundled_spec_dir()).resolve()
    if not spec_dir.is_dir():
        raise UsageError(f"--spec {spec_dir}: no such folder")
    files = load_cases(options.case_files or default_case_files(spec_dir))
    selector = parse_selector(options.k) if options.k is not None else None
    cases = select_cases(files, areas=options.areas, selector=selector)
    expected = (
        load_expected_failures(options.expected_failures) if options.expected_failures else NONE
    )
    if on_warning is not None:
        known = {name for f in files for c in f.cases for name in (c.name, *c.rules)}
        for key in expected.unused(known):
            on_warning(
                f"{expected.path}:{expected.lines[key]}: {key!r} names no case and no rule "
                "of the case files: it has no effect"
            )
    judge = Judge.for_spec(
        spec_dir,
        accept_equivalent_diffs=options.accept_equivalent_diffs,
        expected_failures=expected,
    )
    if factory is None:
        factory = transport_factory(options.impl, timeout=options.timeout, spec_dir=spec_dir)

    started_at = _now()
    clock = time.perf_counter()
    transports: list[Transport] = []
    writer: ResultsWriter | None = None
    try:
        hello = _start(factory, min(options.jobs, max(1, len(cases))), transports)
        header = Header(
            ctxconf_version=__version__,
            spec_version=_spec_version(spec_dir, files[0].version if files else ""),
            spec_dir=str(spec_dir),
            impl=options.impl,
            implementation=ImplementationInfo(
                hello.implementation.name,
                hello.implementation.version,
                hello.implementation.language,
            ),
            areas=hello.areas,
            started=started_at,
            options=Options(
                jobs=options.jobs,
                timeout=options.timeout,
                k=options.k,
                accept_equivalent_diffs=options.accept_equivalent_diffs,
                expected_failures=str(options.expected_failures)
                if options.expected_failures
                else None,
            ),
        )
        if results_path is not None:
            writer = ResultsWriter(results_path, header)
        if on_start is not None:
            on_start(len(cases))
        ordered = _Ordered(len(cases), writer, on_case)
        _run_all(cases, transports, hello, judge, options.timeout, ordered)
    except BaseException:
        if writer is not None:
            writer.abandon()  # no footer: the file says the run was cut short
        raise
    finally:
        for transport in transports:
            transport.close()
    done = tuple(result for result in ordered.results if result is not None)
    footer = Footer(
        finished=_now(),
        duration=time.perf_counter() - clock,
        totals=totals(done),
        exit_code=exit_code(done),
    )
    if writer is not None:
        writer.finish(footer)
    return Results(header, done, footer)
