"""`ctxconf audit`: read the session records users already have and say which requests lost
the prompt cache, why and at what cost."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.errors import CtxconfError
from ctxconf.exitcodes import EXIT_USAGE
from ctxconf.userfiles.atomic import check_outputs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="files or folders of session records; default: every source's usual places under "
        "your home (~/.claude/projects, ~/.codex/sessions, ~/.gemini, …)",
    )
    parser.add_argument("--source", metavar="NAME", help="read every file as this source")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the results as JSON")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the results as a page")
    parser.add_argument(
        "--bundle",
        type=Path,
        metavar="FILE",
        help="write a redacted bundle to attach to an issue: figures, causes, places; no "
        "prompt text, no credential",
    )
    parser.add_argument("--prices", type=Path, metavar="FILE", help="price rows over the bundled")
    parser.add_argument(
        "--fail-under",
        type=_share,
        metavar="RATE",
        help="exit 1 when the hit rate is under RATE (0.8 or 80%%)",
    )
    parser.add_argument(
        "--max-lost-usd",
        type=float,
        metavar="N",
        help="exit 1 when the dollars lost to breaks (not to lifetimes) pass N",
    )
    parser.add_argument("--since", metavar="DATE", help="only requests from DATE on")
    parser.add_argument("--harness", metavar="NAME", help="only this harness's sessions")
    parser.add_argument("--project", metavar="TEXT", help="only projects whose folder holds TEXT")
    parser.add_argument(
        "--home", type=Path, metavar="DIR", help="the home folder the default places are under"
    )


def _share(text: str) -> float:
    """A hit rate as a share (0.8) or a percent (80%, or 80)."""
    number = text.strip().removesuffix("%")
    try:
        value = float(number)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a rate (write 0.8 or 80%)") from None
    if text.strip().endswith("%") or value > 1:
        value /= 100
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a rate between 0 and 100%")
    return value


def run(args: argparse.Namespace) -> int:
    from ctxconf.audit.command import AuditOptions, parse_since, run_audit
    from ctxconf.audit.readers import READERS, reader_named
    from ctxconf.audit.sessions import Filters

    try:
        forced = None
        if args.source is not None:
            reader = reader_named(args.source)
            if reader is None:
                names = ", ".join(r.name for r in READERS)
                print(f"ctxconf audit: no source {args.source!r}; known: {names}", file=sys.stderr)
                return EXIT_USAGE
            forced = reader
        since = parse_since(args.since) if args.since else None
        check_outputs(
            [("--json", args.json), ("--html", args.html), ("--bundle", args.bundle)],
            reads=[("a session record", p) for p in args.paths if p.is_file()],
        )
        options = AuditOptions(
            paths=args.paths,
            forced=forced,
            home=args.home or Path.home(),
            filters=Filters(since, args.harness, args.project),
            prices=args.prices,
            json_out=args.json,
            html_out=args.html,
            bundle_out=args.bundle,
            fail_under=args.fail_under,
            max_lost_usd=args.max_lost_usd,
        )
        return run_audit(options)
    except ValueError as e:
        print(f"ctxconf audit: {e}", file=sys.stderr)
        return EXIT_USAGE
    except CtxconfError as e:
        print(f"ctxconf audit: {e.describe()}", file=sys.stderr)
        return EXIT_USAGE
