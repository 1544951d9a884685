"""`ctxconf proxy`: a recording reverse proxy between a harness and its provider, with the
audit's live view of its record wired in (the proxy and the audit never import each other)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.errors import CtxconfError
from ctxconf.exitcodes import EXIT_USAGE
from ctxconf.userfiles.atomic import check_outputs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--upstream",
        required=True,
        metavar="URL",
        help="the provider's base URL, as https://api.anthropic.com; the harness's base URL "
        "then points at the proxy",
    )
    parser.add_argument(
        "--listen",
        default="127.0.0.1:8787",
        metavar="[HOST:]PORT",
        help="where to listen (default 127.0.0.1:8787; port 0 picks a free one, printed)",
    )
    parser.add_argument(
        "--record",
        required=True,
        type=Path,
        metavar="DIR",
        help="the folder of the records: one JSON-lines file per run, and the salt of its hashes",
    )
    parser.add_argument(
        "--hash-only",
        action="store_true",
        help="keep sha256 hashes of each body's parts (tools, system blocks, messages' blocks) "
        "and none of its text",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --listen address other than the loopback",
    )
    parser.add_argument(
        "--page",
        type=Path,
        metavar="FILE",
        help="the audit's page of the run, rewritten after each exchange and reloaded by the "
        "browser every few seconds (default: DIR/live.html)",
    )
    parser.add_argument(
        "--body-limit",
        type=_size,
        metavar="BYTES",
        help="the most of one body the record keeps (default 64 MiB); a longer one is "
        "forwarded whole and recorded as truncated",
    )


def _size(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of bytes") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: give at least 1 byte")
    return value


def run(args: argparse.Namespace) -> int:
    from functools import partial

    from ctxconf.audit.live import LiveAudit
    from ctxconf.proxy import options, run_proxy
    from ctxconf.proxy.apart import WatcherApart

    try:
        chosen = options(
            args.upstream,
            args.listen,
            args.record,
            allow_remote=args.allow_remote,
            hash_only=args.hash_only,
            body_limit=args.body_limit,
        )
        page = args.page if args.page is not None else args.record / "live.html"
        check_outputs([("--page", page)])
        # The audit's live view works in a process of its own, away from the forwarding.
        watcher = WatcherApart(partial(LiveAudit, page))
        try:
            return run_proxy(chosen, sys.stdout, watcher)
        finally:
            watcher.close()
    except CtxconfError as e:
        print(f"ctxconf proxy: {e.describe()}", file=sys.stderr)
        return EXIT_USAGE
