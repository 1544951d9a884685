"""`ctxconf probe`: check a real, unmodified harness from the outside, against a mock model;
with --record-proxy, through the recording proxy put in front of each session's mock (the probe
and the proxy never import each other: the front is made here)."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ctxconf.errors import CtxconfError
from ctxconf.exitcodes import EXIT_USAGE
from ctxconf.userfiles.atomic import check_folder, check_outputs

if TYPE_CHECKING:
    from ctxconf.probe.harness import Front


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--harness",
        action="append",
        metavar="NAME|PROFILE.yaml",
        help="a bundled harness or a profile file; repeatable, `all` for every bundled one",
    )
    parser.add_argument(
        "--scenario",
        action="append",
        metavar="NAME|FILE",
        help="default: basic; repeatable, `all` for every bundled one",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="probe every harness with every scenario, N at a time, each in a process of its "
        "own; results go to --out",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="where each pair of harness and scenario writes HARNESS-SCENARIO.{json,html} (and, "
        "with several or --jobs, .txt); default: reports",
    )
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
        "--padding",
        type=_tokens,
        metavar="TOKENS",
        help="project notes of about TOKENS tokens in the harness's instruction file (else after "
        "the first message), so a small harness's prompt reaches the providers' cache minimums",
    )
    parser.add_argument(
        "--prices",
        type=Path,
        metavar="FILE",
        help="a price table over the bundled list prices"
        " (the shape of ctxconf/cache/data/prices.json)",
    )
    parser.add_argument(
        "--matrix",
        nargs="+",
        type=Path,
        metavar="RESULTS",
        help="instead of probing: the harness-by-check matrix of these results files",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="OLD_MATRIX.json",
        help="with --matrix: mark every cell that changed since this earlier matrix (written by "
        "--matrix … --json), better, worse or only changed; exit 1 when one got worse",
    )
    parser.add_argument(
        "--tolerance",
        metavar="PERCENT%,TOKENS,DOLLARS",
        help="with --compare: how far tokens re-read and a cost may move, past both a share of "
        "what they were and a floor, before they count as better or worse; a hit rate, by the "
        "share in points (default: 5%%,100,0.0001)",
    )
    parser.add_argument(
        "--record-proxy",
        type=Path,
        metavar="DIR",
        help="put ctxconf proxy in front of each session's mock and point the harness at it, "
        "recording into DIR (one record per session; `ctxconf audit DIR` reads them)",
    )
    parser.add_argument("--list", action="store_true", help="list bundled harnesses and scenarios")
    outputs = parser.add_argument_group(
        "outputs", "one probe's files (with neither: HARNESS-SCENARIO.{json,html} under --out)"
    )
    outputs.add_argument("--html", type=Path, metavar="PATH", help="write the HTML page")
    outputs.add_argument(
        "--json",
        type=Path,
        metavar="PATH",
        help="write the results file (with --matrix: the matrix)",
    )
    outputs.add_argument("--markdown", type=Path, metavar="PATH", help="with --matrix")


def run(args: argparse.Namespace) -> int:
    from ctxconf.probe.command import list_bundled, matrix, probe, probe_all

    try:
        if args.tolerance is not None and args.compare is None:
            print("ctxconf probe: --tolerance goes with --compare", file=sys.stderr)
            return EXIT_USAGE
        if args.list:
            return list_bundled(sys.stdout)
        _check_outputs(args)
        if args.matrix:
            return matrix(
                args.matrix,
                html=args.html,
                markdown=args.markdown,
                out=sys.stdout,
                json=args.json,
                compare=args.compare,
                tolerance=args.tolerance,
            )
        if args.compare is not None:
            print("ctxconf probe: --compare goes with --matrix", file=sys.stderr)
            return EXIT_USAGE
        if not args.harness:
            print("ctxconf probe: --harness is required (or --matrix, or --list)", file=sys.stderr)
            return EXIT_USAGE
        scenarios = args.scenario or ["basic"]
        if _is_batch(args):
            jobs = 1 if args.jobs is None else args.jobs  # --jobs 0 is refused, not taken as 1
            return probe_all(args.harness, scenarios, jobs, args.out, _passed_on(args))
        return probe(
            args.harness[0],
            scenarios[0],
            args.bin,
            args.timeout,
            args.keep,
            html=args.html,
            json=args.json,
            out=sys.stdout,
            provider=args.provider,
            prices=args.prices,
            folder=args.out,
            padding=args.padding,
            front=None if args.record_proxy is None else _recording(args.record_proxy),
        )
    except CtxconfError as e:
        print(f"ctxconf probe: {e.describe()}", file=sys.stderr)
        return EXIT_USAGE


def _recording(folder: Path) -> Front:
    """A front that records: a proxy forwarding to the mock, its record in `folder`."""
    from ctxconf.proxy import Options, ProxyThread

    @contextmanager
    def front(mock_url: str) -> Iterator[str]:
        with ProxyThread(Options(mock_url, folder), io.StringIO()) as running:
            yield running.url

    return front


def _tokens(text: str) -> int:
    """A count of tokens for --padding: a whole number from 1 to a million."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of tokens") from None
    if not 1 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"{value} tokens: give from 1 to 1000000")
    return value


def _passed_on(args: argparse.Namespace) -> list[str]:
    """The options each probe of a batch is given as they were given here."""
    options: list[str] = []
    for folder in args.bin:
        options += ["--bin", str(folder.resolve())]
    if args.timeout is not None:
        options += ["--timeout", str(args.timeout)]
    if args.keep:
        options.append("--keep")
    if args.provider is not None:
        options += ["--provider", args.provider]
    if args.prices is not None:
        options += ["--prices", str(args.prices.resolve())]
    if args.padding is not None:
        options += ["--padding", str(args.padding)]
    if args.record_proxy is not None:
        options += ["--record-proxy", str(args.record_proxy.resolve())]
    return options


def _is_batch(args: argparse.Namespace) -> bool:
    """Several pairs of harness and scenario, or --jobs: each pair a probe process of its own."""
    if not args.harness or args.matrix:
        return False
    scenarios = args.scenario or ["basic"]
    many = len(args.harness) > 1 or len(scenarios) > 1 or "all" in args.harness + scenarios
    return many or args.jobs is not None


def _check_outputs(args: argparse.Namespace) -> None:
    """The files the probe will write, checked before any harness starts."""
    outputs = [("--html", args.html), ("--json", args.json), ("--markdown", args.markdown)]
    reads = [("--matrix", path) for path in args.matrix or ()]
    if args.compare is not None:
        reads.append(("--compare", args.compare))
    check_outputs(outputs, reads=reads)
    if _is_batch(args) and (args.html is not None or args.json is not None):
        raise CtxconfError(
            "--html and --json name one probe's files; with several, give --out DIR",
            hint="each pair writes DIR/HARNESS-SCENARIO.{json,html,txt}",
        )
    if args.out is not None and (args.html is not None or args.json is not None):
        raise CtxconfError(
            "--out names a folder for the files a probe names itself; --html and --json name "
            "them one by one: give one or the other",
            hint="with --out DIR a probe writes DIR/HARNESS-SCENARIO.{json,html}",
        )
    if args.harness and not args.matrix and args.html is None and args.json is None:
        check_folder(args.out or Path("reports"))  # where the probe writes by default
    if args.record_proxy is not None:
        if args.record_proxy.exists() and not args.record_proxy.is_dir():
            raise CtxconfError(f"--record-proxy {args.record_proxy}: not a folder")
        check_folder(args.record_proxy)
