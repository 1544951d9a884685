"""`ctxconf fuzz --impl SPEC`: random sessions on an implementation and on the reference; the
first disagreement is shrunk, shown, and written as a case file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.commands._impl import add_impl_argument
from ctxconf.fuzzing.command import FuzzRequest, execute
from ctxconf.fuzzing.model import AREA, DEFAULT_EXAMPLES, DEFAULT_TIMEOUT
from ctxconf.reference import AREAS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_impl_argument(parser)
    parser.add_argument(
        "--area",
        choices=AREAS,
        default=AREA,
        help=f"the area whose sessions are generated (default {AREA})",
    )
    parser.add_argument(
        "--examples",
        type=int,
        default=None,
        metavar="N",
        help=f"sessions to generate (default {DEFAULT_EXAMPLES}; with --max-time "
        "alone, as many as the time allows)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help="the same seed generates the same sessions (default: random)",
    )
    parser.add_argument(
        "--max-time",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop generating sessions after this long",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="PATH",
        help="where to write the case file of a finding (default: ./reports/)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"per session (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--ops",
        type=_names,
        default=None,
        metavar="OP,OP,…",
        help="generate only steps of these ops, e.g. read,edit,output (default: every op)",
    )
    parser.add_argument(
        "--skip-ops",
        type=_names,
        default=(),
        metavar="OP,OP,…",
        help="generate no steps of these ops, e.g. apply_patch,compact",
    )
    parser.add_argument(
        "--accept-equivalent-diffs",
        action="store_true",
        help="a different but equivalent diff is no disagreement",
    )


def _names(value: str) -> tuple[str, ...]:
    """A comma-separated list of op names; `execute` checks them against the area's ops."""
    return tuple(name.strip() for name in value.split(",") if name.strip())


def run(args: argparse.Namespace) -> int:
    request = FuzzRequest(
        impl=args.impl,
        examples=args.examples,
        seed=args.seed,
        max_time=args.max_time,
        out=args.out,
        timeout=args.timeout,
        accept_equivalent_diffs=args.accept_equivalent_diffs,
        area=args.area,
        ops=args.ops,
        skip_ops=args.skip_ops,
    )
    return execute(request, stdout=sys.stdout, stderr=sys.stderr)
