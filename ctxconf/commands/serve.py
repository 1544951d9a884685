"""`ctxconf serve`: the reference implementation over JSON lines (--stdio) or HTTP (--http)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.cli import EXIT_OK, EXIT_USAGE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument(
        "--stdio",
        action="store_true",
        help="answer protocol messages as JSON lines on stdin/stdout",
    )
    how.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        help="answer GET /hello and POST /run on HOST (default 127.0.0.1) and PORT "
        "(0 picks a free one); prints the URL, serves until interrupted",
    )
    parser.add_argument(
        "--spec", type=Path, metavar="DIR", help="use the loop.json of this spec folder"
    )


def run(args: argparse.Namespace) -> int:
    from ctxconf.runner import serve

    try:
        implementation = serve.reference(args.spec)
    except (OSError, ValueError, KeyError) as error:
        print(f"ctxconf serve: cannot load the spec: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.stdio:
        return int(serve.serve_stdio(implementation))
    try:
        host, port = serve.parse_address(args.http)
    except ValueError as error:
        print(f"ctxconf serve: --http {error}", file=sys.stderr)
        return EXIT_USAGE

    def ready(url: str) -> None:
        print(url, flush=True)

    try:
        serve.serve_http(host, port, implementation, on_ready=ready)
    except OSError as error:
        print(f"ctxconf serve: cannot listen on {host}:{port}: {error.strerror}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK
