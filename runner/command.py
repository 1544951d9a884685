"""What `ctxconf run` does around a run: the spec folder named first, progress, the failures,
the summary, the output files, and an interruption turned into a finished, marked run."""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ctxconf.errors import CtxconfError
from ctxconf.exitcodes import EXIT_INTERRUPTED, EXIT_USAGE
from ctxconf.specdata.folder import announce
from ctxconf.spectext.decisions import load_decisions
from ctxconf.userfiles.atomic import write_text_atomic
from ctxconf.userfiles.document import display

from .decision_groups import groups
from .display import Progress, report_failures, rule_summary, summary_line
from .engine import RunOptions, resolve_spec_dir, run_suite
from .expected_failures import failures_yaml
from .interrupt import interruptible
from .junit import write_junit
from .results import CaseResult, Results


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


def _write_outputs(request: RunRequest, results: Results, stderr: TextIO) -> list[str]:
    """Write the JUnit, HTML and expected-failures files; the paths written."""
    written = [display(request.json)] if request.json else []
    if request.junit is not None:
        write_junit(results, request.junit)
        written.append(display(request.junit))
    if request.html is not None and _write_html(results, request.html, stderr):
        written.append(display(request.html))
    if request.write_expected_failures is not None:
        if results.footer.interrupted:
            stderr.write(
                f"note: {request.write_expected_failures} not written: the run was interrupted, "
                "so its failures are not all known\n"
            )
        else:
            path = request.write_expected_failures
            path.parent.mkdir(parents=True, exist_ok=True)
            header = (
                f"Expected failures of {results.header.implementation.name} "
                f"{results.header.implementation.version}, written by ctxconf run "
                f"{results.header.started}.\nGive it with --expected-failures; "
                "take each case off the list as it is fixed."
            )
            write_text_atomic(path, failures_yaml(results.cases, header))
            written.append(display(path))
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
        stderr.write(f"warning: {message}\n")

    with interruptible():
        try:
            spec_dir = resolve_spec_dir(request.options.spec_dir)
            if not request.quiet:
                announce(spec_dir, stderr)
            results = run_suite(
                request.options,
                results_path=request.json,
                on_start=started,
                on_case=case_done,
                on_warning=warn,
            )
        except CtxconfError as error:
            if progress is not None:
                progress.clear()
            stderr.write(f"ctxconf run: {error.describe()}\n")
            return EXIT_USAGE
        except KeyboardInterrupt:  # before the implementation said hello: nothing to keep
            stderr.write("interrupted before any case ran; no results were written\n")
            return EXIT_INTERRUPTED
        finally:
            if progress is not None:
                progress.clear()
        written = _write_outputs(request, results, stderr)
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
        return EXIT_INTERRUPTED if footer.interrupted else footer.exit_code
