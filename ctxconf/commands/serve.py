"""`ctxconf serve`: the reference implementation, or a Python module's, over JSON lines (--stdio)
or HTTP (--http)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.exitcodes import EXIT_OK, EXIT_USAGE


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
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--spec", type=Path, metavar="DIR", help="use the loop.json of this spec folder"
    )
    what.add_argument(
        "--module",
        metavar="MODULE",
        help="serve this module's hello() and run(request) instead of the reference "
        "(imported from the current folder first); what --impl pyproc:MODULE starts",
    )


def run(args: argparse.Namespace) -> int:
    from ctxconf.errors import CtxconfError
    from ctxconf.runner import serve
    from ctxconf.runner.transports import Implementation, import_implementation

    implementation: Implementation
    try:
        if args.module is not None:
            implementation = import_implementation(args.module, "--module ")
        else:
            implementation = serve.reference(args.spec)
    except CtxconfError as error:
        print(f"ctxconf serve: {error.describe()}", file=sys.stderr)
        return EXIT_USAGE
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
