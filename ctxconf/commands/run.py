"""`ctxconf run`: run the conformance cases against an implementation."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.cli import EXIT_USAGE
from ctxconf.commands._impl import add_impl_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_impl_argument(parser)
    parser.add_argument(
        "--cases", nargs="+", type=Path, metavar="FILE", help="case files (default: the spec's)"
    )
    parser.add_argument(
        "--spec", type=Path, metavar="DIR", help="a folder laid out like spec/ (default: bundled)"
    )
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
        "--timeout", type=float, default=10.0, metavar="SECONDS", help="per case (default 10)"
    )
    parser.add_argument(
        "--expected-failures",
        type=Path,
        metavar="FILE",
        help="YAML: case name or rule anchor -> reason; one that passes fails the run",
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
        spec_dir=args.spec,
        case_files=tuple(args.cases or ()),
        areas=tuple(args.area),
        k=args.k,
        jobs=args.jobs,
        timeout=args.timeout,
        expected_failures=args.expected_failures,
        accept_equivalent_diffs=args.accept_equivalent_diffs,
    )
    if args.html is None and args.json is None and args.junit is None:
        args.html, args.json = Path("reports/report.html"), Path("reports/results.json")
    request = RunRequest(options, html=args.html, json=args.json, junit=args.junit)
    code = execute(request, stdout=sys.stdout, stderr=sys.stderr)
    return code if code in (0, 1) else EXIT_USAGE
