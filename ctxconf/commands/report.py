"""`ctxconf report RESULTS.json [--html OUT] [--compare EARLIER.json]`: re-render a run's report,
or compare it with an earlier run (a page too only when --html is given).

Exit codes: 0 written; 1 written, and --compare found newly failing cases; 2 a results file that
cannot be read, is not valid, or was cut short.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.errors import CtxconfError
from ctxconf.runner.report import format_comparison, render_report
from ctxconf.terminal.controls import visible_controls
from ctxconf.userfiles.atomic import check_outputs
from ctxconf.userfiles.document import display


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
    page = args.html or (None if args.compare else args.results.with_suffix(".html"))
    reads = [("RESULTS.json", args.results)]
    if args.compare is not None:
        reads.append(("--compare", args.compare))
    try:
        check_outputs([("--html", page)], reads=reads)  # before anything is read or rendered
        outcome = render_report(args.results, args.html, args.compare)
    except CtxconfError as error:  # a results file refused, or a page that cannot be written
        print(f"ctxconf report: {error.describe()}", file=sys.stderr)
        return 2
    for reason in outcome.unread_texts:
        print(f"warning: {reason}: its rules are not in the page", file=sys.stderr)
    if outcome.comparison is not None:
        # Case names come from the results files, which anyone may have written.
        print(visible_controls(format_comparison(outcome.comparison)))
    if outcome.html_path is not None:
        print(f"wrote {display(outcome.html_path)}")
    return outcome.exit_code
