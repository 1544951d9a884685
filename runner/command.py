"""What `ctxconf run` does around a run: the outputs checked and the spec folder named first,
progress, the failures, the summary, the output files, and an interruption turned into a
finished, marked run. An output that cannot be written is said once, after the summary, and
the run exits 2."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ctxconf.errors import CtxconfError
from ctxconf.exitcodes import EXIT_INTERRUPTED, EXIT_USAGE
from ctxconf.specdata.folder import announce
from ctxconf.spectext.decisions import load_decisions
from ctxconf.spectext.rules import unreadable_texts
from ctxconf.terminal.controls import visible_controls
from ctxconf.userfiles.atomic import OutputError, check_outputs, write_text_atomic
from ctxconf.userfiles.document import display

from .decision_groups import groups
from .display import Progress, report_failures, rule_summary, summary_line
from .engine import RunOptions, resolve_spec_dir, run_suite
from .expected_failures import failures_yaml
from .interrupt import interruptible
from .junit import write_junit
from .results import CaseResult, Results, ResultsNotWritten


@dataclass(frozen=True)
class RunRequest:
    options: RunOptions
    html: Path | None = None
    json: Path | None = None
    junit: Path | None = None
    write_expected_failures: Path | None = None
    quiet: bool = False  # the failures and the line of counts only


def _write_html(results: Results, path: Path, stderr: TextIO) -> bool:
    try:
        report = importlib.import_module("ctxconf.runner.report")
    except ModuleNotFoundError as error:
        if error.name != "ctxconf.runner.report":
            raise
        report = None
    write_html = getattr(report, "write_html", None)
    if write_html is None:
        stderr.write(f"note: no HTML report ({path}): this ctxconf has no report module yet\n")
        return False
    write_html(results, path)
    return True


def outputs_of(request: RunRequest) -> list[tuple[str, Path | None]]:
    """The files a run writes, by the option that names each."""
    return [
        ("--json", request.json),
        ("--html", request.html),
        ("--junit", request.junit),
        ("--write-expected-failures", request.write_expected_failures),
    ]


def _expected_failures(results: Results, path: Path) -> None:
    header = (
        f"Expected failures of {results.header.implementation.name} "
        f"{results.header.implementation.version}, written by ctxconf run "
        f"{results.header.started}.\nGive it with --expected-failures; "
        "take each case off the list as it is fixed."
    )
    write_text_atomic(path, failures_yaml(results.cases, header))


def _write_outputs(
    request: RunRequest, results: Results, stderr: TextIO, failed: list[OutputError]
) -> list[str]:
    """Write the JUnit, HTML and expected-failures files, each apart (one that cannot be written
    is added to `failed`, the others are still written); the paths written."""
    written = [display(request.json)] if request.json and not failed else []

    def attempt(path: Path, write: Callable[[], bool | None]) -> None:
        try:
            if write() is not False:
                written.append(display(path))
        except OutputError as error:
            failed.append(error)

    if request.junit is not None:
        junit = request.junit
        attempt(junit, lambda: write_junit(results, junit))
    if request.html is not None:
        html = request.html
        attempt(html, lambda: _write_html(results, html, stderr))
    if request.write_expected_failures is not None:
        if results.footer.interrupted:
            stderr.write(
                f"note: {request.write_expected_failures} not written: the run was interrupted, "
                "so its failures are not all known\n"
            )
        else:
            path = request.write_expected_failures
            attempt(path, lambda: _expected_failures(results, path))
    return written


def execute(request: RunRequest, *, stdout: TextIO, stderr: TextIO) -> int:
    """Run, show the outcome, write the files; the exit code (0, 1, 2 for unusable input,
    130 when SIGINT, SIGTERM or SIGHUP stopped the run)."""
    begun = time.perf_counter()  # the summary's time covers the whole command, outputs too
    progress: Progress | None = None
    chosen = 0

    def started(total: int) -> None:
        nonlocal progress, chosen
        chosen = total
        progress = Progress(stderr, total, enabled=stderr.isatty())

    def case_done(result: CaseResult) -> None:
        if progress is not None:
            progress.update(result)

    def warn(message: str) -> None:
        stderr.write(f"warning: {visible_controls(message)}\n")

    failed: list[OutputError] = []
    with interruptible():
        try:
            check_outputs(outputs_of(request))  # before the run: a refused path costs no run
            spec_dir = resolve_spec_dir(request.options.spec_dir)
            if not request.quiet:
                announce(spec_dir, stderr)
            for unread in unreadable_texts(spec_dir):  # they only decorate the failures
                warn(f"{unread.message}: its rules and decisions are not shown")
            results = run_suite(
                request.options,
                results_path=request.json,
                on_start=started,
                on_case=case_done,
                on_warning=warn,
            )
        except ResultsNotWritten as error:
            results = error.results
            failed.append(error)
        except CtxconfError as error:
            if progress is not None:
                progress.clear()
            # An implementation's stderr and answers are quoted: no control of theirs is sent.
            stderr.write(f"ctxconf run: {visible_controls(error.describe())}\n")
            return EXIT_USAGE
        except KeyboardInterrupt:  # before the implementation said hello: nothing to keep
            stderr.write("interrupted before any case ran; no results were written\n")
            return EXIT_INTERRUPTED
        finally:
            if progress is not None:
                progress.clear()
        written = _write_outputs(request, results, stderr, failed)
        footer = results.footer
        decisions = load_decisions(spec_dir) if footer.read_otherwise else {}
        failures = report_failures(results.cases, groups(footer.read_otherwise, decisions))
        if failures:
            stdout.write(failures + "\n\n")
        if not request.quiet:
            rules = rule_summary(results.cases)
            if rules:
                stdout.write(rules + "\n\n")
            if written:
                stderr.write(f"wrote {', '.join(written)}\n")
        if footer.interrupted:
            ran = len(results.cases)
            of = f"{chosen} case" if chosen == 1 else f"{chosen} cases"
            stderr.write(f"interrupted: {ran} of {of} ran; the results hold {ran}\n")
        elif results.cases and footer.totals.get("skipped", 0) == len(results.cases):
            stderr.write(
                "nothing was judged: the implementation skipped every case, so the run fails\n"
            )
        stdout.write(summary_line(footer.totals, time.perf_counter() - begun) + "\n")
        stdout.flush()
        for unwritten in failed:
            stderr.write(f"ctxconf run: {unwritten.describe()}\n")
        if failed and not footer.interrupted:
            return EXIT_USAGE
        return EXIT_INTERRUPTED if footer.interrupted else footer.exit_code
