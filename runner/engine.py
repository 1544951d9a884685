"""A conformance run: load and choose the cases, greet the implementation, run every case,
judge the answers, and write the results as they come.

    results = run_suite(RunOptions(impl="cmd:ctxconf serve --stdio"), results_path=Path("r.json"))

Only unusable input or an implementation that cannot start raises (a `CtxconfError`); whatever an
implementation does wrong during a case becomes that case's verdict. A run that would test
nothing (no case chosen, or none in an area the implementation lists) is unusable input too.
An interruption (KeyboardInterrupt, or `interrupt.Interrupted` for SIGTERM and SIGHUP) once the
implementation has said hello ends the run early: the results of the cases done, the footer
marked interrupted.

Its parts: `run_checks` refuses an unusable run, `case_run` runs and judges one case, `case_pool`
spreads the cases over the transports and hands the results on in case order, and
`decision_groups` names, once the cases are done, the decisions whose failures are the other
reading's answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ctxconf import __version__
from ctxconf.exitcodes import EXIT_INTERRUPTED
from ctxconf.specdata.reader import read_loop
from ctxconf.userfiles.atomic import OutputError
from ctxconf.userfiles.document import printable

from .case_pool import OnCase, Ordered, close_all, run_all, start_all
from .case_run import greet, run_case
from .cases import default_case_files, load_cases, select_cases
from .decision_groups import read_otherwise
from .errors import UsageError
from .expected_failures import NONE, load_expected_failures
from .results import (
    CaseResult,
    Footer,
    Header,
    ImplementationInfo,
    Options,
    Results,
    ResultsNotWritten,
    ResultsWriter,
    dump,
    exit_code,
    totals,
)
from .run_checks import (
    MAX_TIMEOUT,
    check_areas,
    check_hello_areas,
    check_timeout,
    known_areas_of,
    nothing_selected,
    resolve_spec_dir,
)
from .selection import parse_selector
from .transports import Transport, TransportFactory, transport_factory
from .transports.base import START_SECONDS
from .verdicts import Judge

# Taken from here by the commands and the pytest plugin, though made in the modules above.
__all__ = [
    "MAX_TIMEOUT",
    "RunOptions",
    "check_timeout",
    "greet",
    "resolve_spec_dir",
    "run_case",
    "run_suite",
]


@dataclass(frozen=True)
class RunOptions:
    impl: str
    spec_dir: Path | None = None  # None: the bundled spec
    case_files: tuple[Path, ...] = ()  # (): every conformance/*.json of the spec folder
    areas: tuple[str, ...] = ()
    k: str | None = None
    jobs: int = 1
    timeout: float = 10.0
    start_timeout: float = START_SECONDS  # for starting the implementation and its hello
    expected_failures: Path | None = None
    accept_equivalent_diffs: bool = False


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _spec_version(loop: Mapping[str, Any], fallback: str) -> str:
    version = loop.get("version")
    return fallback if version is None else str(version)


def run_exit_code(cases: Sequence[CaseResult]) -> int:
    """0 when every case passed or failed as expected; 1 otherwise, and when the implementation
    skipped every case: a run that judged nothing shows no conformance (an adapter that skips
    by mistake must not pass CI)."""
    if cases and all(case.verdict == "skipped" for case in cases):
        return 1
    return exit_code(cases)


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
    check_timeout(options.start_timeout, "--start-timeout")
    spec_dir = resolve_spec_dir(options.spec_dir)
    files = load_cases(options.case_files or default_case_files(spec_dir))
    known_areas = known_areas_of(files)
    check_areas(options.areas, known_areas)
    selector = parse_selector(options.k) if options.k is not None else None
    cases = select_cases(files, areas=options.areas, selector=selector)
    if not cases:
        raise nothing_selected(files, options.areas, selector)
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
            options.impl, start_timeout=options.start_timeout, spec_dir=spec_dir, loop=loop
        )

    started_at = _now()
    clock = time.perf_counter()
    transports: list[Transport] = []
    writer: ResultsWriter | None = None
    header: Header | None = None
    ordered: Ordered | None = None
    interrupted = False
    try:
        hello = start_all(factory, min(options.jobs, len(cases)), transports)
        check_hello_areas(hello, cases, known_areas, on_warning)
        header = Header(
            ctxconf_version=__version__,
            spec_version=_spec_version(loop, files[0].version if files else ""),
            # Paths and a command line may hold bytes that are not UTF-8: written escaped.
            spec_dir=printable(str(spec_dir)),
            impl=printable(options.impl),
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
                start_timeout=options.start_timeout,
                k=options.k,
                accept_equivalent_diffs=options.accept_equivalent_diffs,
                expected_failures=printable(str(options.expected_failures))
                if options.expected_failures
                else None,
            ),
        )
        if results_path is not None:
            writer = ResultsWriter(results_path, header)
        if on_start is not None:
            on_start(len(cases))
        ordered = Ordered(len(cases), writer, on_case)
        run_all(cases, transports, hello, judge, options.timeout, ordered)
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
        interrupted = close_all(transports) or interrupted
    assert header is not None and ordered is not None  # every other way out raised
    done = ordered.stop()
    footer = Footer(
        finished=_now(),
        duration=time.perf_counter() - clock,
        totals=totals(done),
        exit_code=EXIT_INTERRUPTED if interrupted else run_exit_code(done),
        interrupted=interrupted,
        read_otherwise=read_otherwise(cases, done, loop),
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
        except OutputError as error:  # the run is done: its results go on to the summary
            writer.abandon()
            raise ResultsNotWritten(error, results) from None
        except BaseException:
            writer.abandon()  # the previous results stay whole
            raise
    return results
