"""What `ctxconf run` does around a run: progress, the failures, the summary, the output files."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .display import Progress, report_failures, summary_line
from .engine import RunOptions, run_suite
from .errors import RunnerError
from .junit import write_junit
from .results import CaseResult, Results

EXIT_USAGE = 2


@dataclass(frozen=True)
class RunRequest:
    options: RunOptions
    html: Path | None = None
    json: Path | None = None
    junit: Path | None = None


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


def execute(request: RunRequest, *, stdout: TextIO, stderr: TextIO) -> int:
    """Run, show the outcome, write the files; the exit code (0, 1, or 2 for unusable input)."""
    progress: Progress | None = None

    def started(total: int) -> None:
        nonlocal progress
        progress = Progress(stderr, total, enabled=stderr.isatty())

    def case_done(result: CaseResult) -> None:
        if progress is not None:
            progress.update(result)

    def warn(message: str) -> None:
        stderr.write(f"warning: {message}\n")

    try:
        results = run_suite(
            request.options,
            results_path=request.json,
            on_start=started,
            on_case=case_done,
            on_warning=warn,
        )
    except RunnerError as error:
        if progress is not None:
            progress.clear()
        stderr.write(f"ctxconf run: {error.describe()}\n")
        return EXIT_USAGE
    finally:
        if progress is not None:
            progress.clear()
    written = [str(request.json)] if request.json else []
    if request.junit is not None:
        write_junit(results, request.junit)
        written.append(str(request.junit))
    if request.html is not None and _write_html(results, request.html, stderr):
        written.append(str(request.html))
    failures = report_failures(results.cases)
    if failures:
        stdout.write(failures + "\n\n")
    if written:
        stderr.write(f"wrote {', '.join(written)}\n")
    stdout.write(summary_line(results.footer.totals, results.footer.duration) + "\n")
    stdout.flush()
    return results.footer.exit_code
