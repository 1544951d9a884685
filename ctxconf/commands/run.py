"""`ctxconf run`: run the conformance cases against an implementation."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.commands._impl import add_impl_argument
from ctxconf.exitcodes import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from ctxconf.specdata.folder import add_spec_argument


def _seconds(text: str) -> float:
    from ctxconf.runner.run_checks import seconds_argument

    return seconds_argument(text)


def _absolute(path: Path | None) -> Path | None:
    # Resolved before the run: a python: implementation may chdir, and must not move the files.
    return path.absolute() if path is not None else None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_impl_argument(parser)
    parser.add_argument(
        "--cases", nargs="+", type=Path, metavar="FILE", help="case files (default: the spec's)"
    )
    add_spec_argument(parser)
    parser.add_argument(
        "--area", action="append", default=[], help="run only this area (repeatable)"
    )
    parser.add_argument(
        "-k",
        metavar="EXPR",
        help="choose cases by name or rule anchor: substrings with not, and, or, parentheses",
    )
    parser.add_argument("-j", "--jobs", type=int, default=1, metavar="N", help="N workers")
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="per case (default 10, at most a day)",
    )
    parser.add_argument(
        "--start-timeout",
        type=_seconds,
        default=30.0,
        metavar="SECONDS",
        help="for starting the implementation and answering hello, at first and after a "
        "restart; apart from the cases' (default 30)",
    )
    parser.add_argument(
        "--expected-failures",
        type=Path,
        metavar="FILE",
        help="YAML: case name or rule anchor -> reason; one that passes fails the run",
    )
    parser.add_argument(
        "--write-expected-failures",
        type=Path,
        metavar="FILE",
        help="write the cases that did not pass as an expected-failures YAML file",
    )
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print only the failures and the line of counts"
    )
    parser.add_argument(
        "--accept-equivalent-diffs",
        action="store_true",
        help="count a different but equivalent diff as a pass",
    )
    outputs = parser.add_argument_group(
        "outputs", "with none of these: reports/report.html and reports/results.json"
    )
    outputs.add_argument("--html", type=Path, metavar="PATH", help="write the HTML report")
    outputs.add_argument("--json", type=Path, metavar="PATH", help="write the results file")
    outputs.add_argument("--junit", type=Path, metavar="PATH", help="write JUnit XML")


def run(args: argparse.Namespace) -> int:
    from ctxconf.runner.command import RunRequest, execute
    from ctxconf.runner.engine import RunOptions

    options = RunOptions(
        impl=args.impl,
        spec_dir=args.spec,  # the spec, the cases and the list are read before any transport
        case_files=tuple(args.cases or ()),
        areas=tuple(args.area),
        k=args.k,
        jobs=args.jobs,
        timeout=args.timeout,
        start_timeout=args.start_timeout,
        expected_failures=args.expected_failures,
        accept_equivalent_diffs=args.accept_equivalent_diffs,
    )
    if args.html is None and args.json is None and args.junit is None:
        args.html, args.json = Path("reports/report.html"), Path("reports/results.json")
    request = RunRequest(
        options,
        html=_absolute(args.html),
        json=_absolute(args.json),
        junit=_absolute(args.junit),
        write_expected_failures=_absolute(args.write_expected_failures),
        quiet=args.quiet,
    )
    code = execute(request, stdout=sys.stdout, stderr=sys.stderr)
    return code if code in (EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED) else EXIT_USAGE
