"""`ctxconf report RESULTS.json [--html OUT] [--compare EARLIER.json]`: re-render a run's report,
or compare it with an earlier run (a page too only when --html is given).

Exit codes: 0 written; 1 written, and --compare found newly failing cases; 2 a results file that
cannot be read, is not valid, or was cut short.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.runner.errors import ResultsFileError
from ctxconf.runner.report import format_comparison, render_report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "results", type=Path, metavar="RESULTS.json", help="a `ctxconf run` results file"
    )
    parser.add_argument(
        "--html",
        type=Path,
        metavar="OUT",
        help="where to write the page (default: RESULTS.html; with --compare: none unless given)",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="EARLIER.json",
        help="list newly failing, newly passing and still failing cases since an earlier run",
    )


def run(args: argparse.Namespace) -> int:
    try:
        outcome = render_report(args.results, args.html, args.compare)
    except ResultsFileError as error:
        print(f"ctxconf report: {error.describe()}", file=sys.stderr)
        return 2
    except OSError as error:  # the page could not be written
        print(f"ctxconf report: cannot write the report: {error}", file=sys.stderr)
        return 2
    if outcome.comparison is not None:
        print(format_comparison(outcome.comparison))
    if outcome.html_path is not None:
        print(f"wrote {outcome.html_path}")
    return outcome.exit_code
