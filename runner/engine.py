"""A conformance run: load and choose the cases, greet the implementation, run every case,
judge the answers, and write the results as they come.

    results = run_suite(RunOptions(impl="cmd:ctxconf serve --stdio"), results_path=Path("r.json"))

Only unusable input or an implementation that cannot start raises (a `RunnerError`); whatever an
implementation does wrong during a case becomes that case's verdict. A run that would test
nothing (no case chosen, or none in an area the implementation lists) is unusable input too.
An interruption (KeyboardInterrupt, or `interrupt.Interrupted` for SIGTERM and SIGHUP) once the
implementation has said hello ends the run early: the results of the cases done, the footer
marked interrupted.
"""

from __future__ import annotations

import difflib
import math
import queue
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ctxconf import __version__
from ctxconf.exitcodes import EXIT_INTERRUPTED
from ctxconf.specfile import read_loop

from .cases import Case, CaseFile, default_case_files, load_cases, select_cases
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
    dump,
    exit_code,
    totals,
)
from .selection import Selector, parse_selector
from .transports import CaseFailure, KeepsStderr, Transport, TransportFactory, transport_factory
from .transports.base import STDERR_KEPT_BYTES
from .verdicts import Judge

MAX_TIMEOUT = 24 * 60 * 60.0  # seconds per case: a day is more than any case needs


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


def _spec_version(loop: Mapping[str, Any], fallback: str) -> str:
    version = loop.get("version")
    return fallback if version is None else str(version)


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
            reply = parse_run_response(
                transport.run(request, timeout),
                seq,
                len(case.steps),
                ops=[str(step.get("op")) for step in case.steps],
            )
        except CaseFailure as failure:
            verdict, stderr = failure.kind, failure.stderr
            message = _naming_the_step(failure, case)
            steps = judge.steps(case, None)
        except ProtocolError as error:
            verdict, message = "error", error.message
            steps = judge.steps(case, error.outputs)
        else:
            if reply.kind == "outputs":
                verdict, steps = judge.answered(case, reply.outputs, reply.step_errors)
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


_OUTPUT_POINTER = re.compile(r"^/outputs/(\d+)(?:/|$)")


def _naming_the_step(failure: CaseFailure, case: Case) -> str:
    """The failure's message, led by the step it concerns when it concerns one output."""
    match = _OUTPUT_POINTER.match(getattr(failure, "pointer", ""))
    if match is None or int(match.group(1)) >= len(case.steps):
        return failure.message
    index = int(match.group(1))
    return f"output {index} (step {index}, {case.steps[index].get('op')}): {failure.message}"


class _Ordered:
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


def _run_all(
    cases: Sequence[Case],
    transports: list[Transport],
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
        # Interrupted: keep what is done, start no more, and end the cases under way by closing
        # their implementations (killing their processes) rather than waiting for them.
        ordered.stop()
        _close_all(transports)
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()


def check_timeout(timeout: float) -> None:
    """UsageError unless `timeout` is a finite number of seconds in (0, MAX_TIMEOUT]."""
    if not (math.isfinite(timeout) and 0 < timeout <= MAX_TIMEOUT):
        raise UsageError(
            f"--timeout {timeout:g}: the timeout is a number of seconds above 0 and at most "
            f"{MAX_TIMEOUT:g} (a day)"
        )


def resolve_spec_dir(given: Path | None) -> Path:
    """The spec folder a run works on, absolute: `given` (--spec), else the spec of the checkout
    the current folder is in, else the bundled one."""
    from ctxconf.specdir import resolve_spec

    return resolve_spec(given).resolve()


def _known_areas(files: Sequence[CaseFile]) -> tuple[str, ...]:
    from ctxconf.reference import AREAS

    return tuple(dict.fromkeys([*AREAS, *(f.area for f in files)]))


def _near(word: str, choices: Sequence[str]) -> str:
    """ "; did you mean X?" when one of `choices` is close to `word`, else ""."""
    close = difflib.get_close_matches(word, choices, n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def _check_areas(areas: Sequence[str], known: Sequence[str]) -> None:
    for area in areas:
        if area not in known:
            raise UsageError(
                f"--area {area}: no such area (the known areas: {', '.join(known)})"
                + _near(area, known)
            )


def _vocabulary(files: Sequence[CaseFile]) -> list[str]:
    """The words -k can match: case names, rule anchors, and their parts."""
    words: set[str] = set()
    for case in (c for f in files for c in f.cases):
        for name in (case.name, *case.rules):
            words.add(name)
            words.update(part for part in re.split(r"[-.]", name) if len(part) > 2)
    return sorted(words)


def _nothing_selected(
    files: Sequence[CaseFile], areas: Sequence[str], selector: Selector | None
) -> UsageError:
    total = sum(len(f.cases) for f in files)
    of = f"{total} case" if total == 1 else f"{total} cases"
    if total == 0:
        return UsageError("the case files hold no case: no case ran", hint="")
    if selector is None:
        return UsageError(
            f"--area {' --area '.join(areas)}: none of the {of} is in that area: no case ran",
            hint="",
        )
    inside = f" of the areas {', '.join(areas)}" if areas else ""
    vocabulary = _vocabulary(files)
    hints = [
        near
        for word in selector.words
        if not any(word.lower() in known.lower() for known in vocabulary)
        and (near := _near(word, vocabulary))
    ]
    return UsageError(
        f"-k {selector.expression!r} selects none of the {of}{inside}: no case ran"
        + (hints[0] if hints else ""),
        hint="a word matches part of a case name or a rule anchor (`ctxconf show` lists them)",
    )


def _check_hello_areas(
    hello: Hello,
    cases: Sequence[Case],
    known: Sequence[str],
    on_warning: Callable[[str], None] | None,
) -> None:
    unknown = [area for area in hello.areas if area not in known]
    if unknown and on_warning is not None:
        names = ", ".join(repr(area) for area in unknown)
        on_warning(
            f"the implementation's hello lists {names}, which is no area "
            f"(the known areas: {', '.join(known)})"
        )
    chosen = list(dict.fromkeys(case.area for case in cases))
    if not any(area in hello.areas for area in chosen):
        listed = ", ".join(repr(area) for area in hello.areas) or "no area"
        raise UsageError(
            f"the implementation's hello lists {listed}, none of the areas of the cases chosen "
            f"({', '.join(chosen)}): no case ran",
            hint='list the areas you implement in the hello, e.g. "areas": ["context"]',
        )


def _close_all(transports: list[Transport]) -> bool:
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
    check_timeout(options.timeout)
    spec_dir = resolve_spec_dir(options.spec_dir)
    files = load_cases(options.case_files or default_case_files(spec_dir))
    known_areas = _known_areas(files)
    _check_areas(options.areas, known_areas)
    selector = parse_selector(options.k) if options.k is not None else None
    cases = select_cases(files, areas=options.areas, selector=selector)
    if not cases:
        raise _nothing_selected(files, options.areas, selector)
    expected = (
        load_expected_failures(options.expected_failures) if options.expected_failures else NONE
    )
    if on_warning is not None:
        names = {c.name for f in files for c in f.cases}
        rules = {rule for f in files for c in f.cases for rule in c.rules}
        for key in expected.unused(names, rules):
            on_warning(
                f"{expected.path}:{expected.lines[key]}: {key!r} names no case and no rule "
                "of the case files: it has no effect"
            )
    # loop.json is read once here, for the verdicts, the reference and the results' header.
    loop = read_loop(spec_dir)
    judge = Judge.for_loop(
        loop,
        accept_equivalent_diffs=options.accept_equivalent_diffs,
        expected_failures=expected,
    )
    if factory is None:
        factory = transport_factory(
            options.impl, timeout=options.timeout, spec_dir=spec_dir, loop=loop
        )

    started_at = _now()
    clock = time.perf_counter()
    transports: list[Transport] = []
    writer: ResultsWriter | None = None
    header: Header | None = None
    ordered: _Ordered | None = None
    interrupted = False
    try:
        hello = _start(factory, min(options.jobs, len(cases)), transports)
        _check_hello_areas(hello, cases, known_areas, on_warning)
        header = Header(
            ctxconf_version=__version__,
            spec_version=_spec_version(loop, files[0].version if files else ""),
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
    except KeyboardInterrupt:
        if header is None or ordered is None:  # before hello: there is nothing to keep
            if writer is not None:
                writer.abandon()
            raise
        interrupted = True
    except BaseException:
        if writer is not None:
            writer.abandon()  # the previous results stay as they were
        raise
    finally:
        # A signal while the implementations stop (after the last case) still ends the run
        # as an interruption, with every process killed.
        interrupted = _close_all(transports) or interrupted
    assert header is not None and ordered is not None  # every other way out raised
    done = ordered.stop()
    footer = Footer(
        finished=_now(),
        duration=time.perf_counter() - clock,
        totals=totals(done),
        exit_code=EXIT_INTERRUPTED if interrupted else exit_code(done),
        interrupted=interrupted,
    )
    results = Results(header, done, footer)
    if writer is not None:
        try:
            if interrupted:
                # The file being written may end in half a line: write the cases done afresh.
                writer.abandon()
                dump(results, writer.path)
            else:
                writer.finish(footer)
        except BaseException:
            writer.abandon()  # the previous results stay whole
            raise
    return results
