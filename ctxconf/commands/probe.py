"""`ctxconf probe`: check a real, unmodified harness from the outside, against a mock model."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.errors import CtxconfError
from ctxconf.exitcodes import EXIT_USAGE
from ctxconf.userfiles.atomic import check_folder, check_outputs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--harness", metavar="NAME|PROFILE.yaml", help="a bundled harness or a profile file"
    )
    parser.add_argument("--scenario", default="basic", metavar="NAME|FILE", help="default: basic")
    parser.add_argument(
        "--bin",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="a folder put first on the harness's PATH (where it was installed); repeatable",
    )
    parser.add_argument(
        "--timeout", type=float, metavar="SECONDS", help="per process (default: the profile's)"
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the last session's home and work folders (their path is printed)",
    )
    parser.add_argument(
        "--provider",
        metavar="NAME",
        help="simulate the prompt cache of this provider (anthropic, openai, gemini, llamacpp) "
        "where the harness's API shape allows it; default: the shape's own",
    )
    parser.add_argument(
        "--prices",
        type=Path,
        metavar="FILE",
        help="a price table over the bundled list prices (the shape of probe/data/prices.json)",
    )
    parser.add_argument(
        "--matrix",
        nargs="+",
        type=Path,
        metavar="RESULTS",
        help="instead of probing: the harness-by-check matrix of these results files",
    )
    parser.add_argument("--list", action="store_true", help="list bundled harnesses and scenarios")
    outputs = parser.add_argument_group(
        "outputs", "with none of these: reports/probe-HARNESS-SCENARIO.{json,html}"
    )
    outputs.add_argument("--html", type=Path, metavar="PATH", help="write the HTML page")
    outputs.add_argument("--json", type=Path, metavar="PATH", help="write the results file")
    outputs.add_argument("--markdown", type=Path, metavar="PATH", help="with --matrix")


def run(args: argparse.Namespace) -> int:
    from ctxconf.probe.command import list_bundled, matrix, probe
    from ctxconf.probe.errors import ProbeDataError

    try:
        if args.list:
            return list_bundled(sys.stdout)
        _check_outputs(args)
        if args.matrix:
            return matrix(args.matrix, html=args.html, markdown=args.markdown, out=sys.stdout)
        if not args.harness:
            print("ctxconf probe: --harness is required (or --matrix, or --list)", file=sys.stderr)
            return EXIT_USAGE
        return probe(
            args.harness,
            args.scenario,
            args.bin,
            args.timeout,
            args.keep,
            html=args.html,
            json=args.json,
            out=sys.stdout,
            provider=args.provider,
            prices=args.prices,
        )
    except (ProbeDataError, CtxconfError) as e:
        print(f"ctxconf probe: {e}", file=sys.stderr)
        return EXIT_USAGE


def _check_outputs(args: argparse.Namespace) -> None:
    """The files the probe will write, checked before any harness starts."""
    outputs = [("--html", args.html), ("--json", args.json), ("--markdown", args.markdown)]
    check_outputs(outputs, reads=[("--matrix", path) for path in args.matrix or ()])
    if args.harness and not args.matrix and args.html is None and args.json is None:
        check_folder(Path("reports"))  # where the probe writes by default
