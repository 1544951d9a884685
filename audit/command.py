"""What `ctxconf audit` does: find the files, read them, hold each session's requests against
each other, and say what was lost, why and at what cost; gate on it where asked.

Exit codes: 0 pass; 1 under a bar (`--fail-under`, `--max-lost-usd`); 2 bad arguments or a
price file that cannot be used; 3 nothing could be judged (no request with cache figures): an
audit of nothing is never green."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from ctxconf.cache import load_prices
from ctxconf.exitcodes import EXIT_FAILED, EXIT_NOTHING_JUDGED, EXIT_OK
from ctxconf.userfiles.atomic import write_text_atomic

from .console import print_console
from .readers.base import Reader
from .readers.registry import READERS
from .record import Problem
from .results import results
from .scan import Found, default_paths, find_files
from .sessions import Filters, audit_sessions
from .summary import summarize


@dataclass(frozen=True)
class AuditOptions:
    paths: Sequence[Path]
    readers: Sequence[Reader] = READERS
    forced: Reader | None = None  # --source: read every file named as this source
    home: Path = field(default_factory=Path.home)
    filters: Filters = field(default_factory=Filters)
    prices: Path | None = None
    json_out: Path | None = None
    html_out: Path | None = None
    bundle_out: Path | None = None
    fail_under: float | None = None  # a hit rate, 0 to 1
    max_lost_usd: float | None = None


class _Progress:
    """A line on a terminal's stderr while a long scan reads, rewritten in place."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.on = err.isatty()
        self.files = 0
        self.bytes = 0

    def __call__(self, found: Found) -> None:
        self.files += 1
        try:
            self.bytes += found.path.stat().st_size
        except OSError:
            pass
        if self.on:
            self.err.write(f"\rreading {self.files:,} files, {self.bytes / 1e6:,.1f} MB ")
            self.err.flush()

    def done(self) -> None:
        if self.on and self.files:
            self.err.write("\r" + " " * 60 + "\r")


def _gate(doc: dict[str, Any], options: AuditOptions) -> list[str]:
    """The bars the audit fell under, each as a line."""
    figures = doc["figures"]
    failed = []
    rate = figures["hit_rate"]
    if options.fail_under is not None and rate is not None and rate < options.fail_under:
        failed.append(f"hit rate {rate:.1%} is under --fail-under {options.fail_under:.1%}")
    if options.max_lost_usd is not None:
        lost = sum(v or 0 for k, v in figures["lost_usd"].items() if k != "provider")
        if lost > options.max_lost_usd:
            failed.append(
                f"${lost:,.4f} lost to breaks (the harness's, boundaries and unknown causes) "
                f"is over --max-lost-usd {options.max_lost_usd:,.4f}"
            )
    return failed


def run_audit(options: AuditOptions, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    table = load_prices(options.prices)
    problems: list[Problem] = []
    paths = list(options.paths) or default_paths(options.home, options.readers)
    if not paths:
        places = ", ".join(r.title for r in options.readers)
        err.write(f"ctxconf audit: no session records found under {options.home} ({places})\n")
        return EXIT_NOTHING_JUDGED
    progress = _Progress(err)
    readers = [options.forced] if options.forced is not None else options.readers
    files = find_files(paths, problems.append, readers, options.forced)
    audits = audit_sessions(files, problems.append, table, options.filters, on_file=progress)
    progress.done()
    summary = summarize(audits, table)
    prices = str(options.prices) if options.prices else "bundled"
    doc = results(summary, [str(p) for p in paths], problems, prices)
    if options.json_out is not None:
        write_text_atomic(options.json_out, json.dumps(doc, indent=1) + "\n")
    if options.html_out is not None:
        from .page import render_page

        write_text_atomic(options.html_out, render_page(doc))
    if options.bundle_out is not None:
        from .bundle import make_bundle

        write_text_atomic(options.bundle_out, json.dumps(make_bundle(doc), indent=1) + "\n")
    print_console(doc, out)
    if doc["figures"]["with_cache_figures"] == 0:
        looked = ", ".join(str(p) for p in paths)
        err.write(
            "ctxconf audit: nothing could be judged: no request with cache figures was read"
            f" ({doc['figures']['requests']:,} request(s) in all, in {looked})\n"
        )
        return EXIT_NOTHING_JUDGED
    failed = _gate(doc, options)
    for line in failed:
        err.write(f"ctxconf audit: {line}\n")
    return EXIT_FAILED if failed else EXIT_OK


def parse_since(text: str) -> datetime:
    """A day (2026-12-01) or a moment in ISO 8601; UTC where no zone is given."""
    from .readers.base import timestamp

    moment = timestamp(text)
    if moment is None:
        raise ValueError(f"not a date: {text!r} (write it as 2026-12-01 or 2026-12-01T09:30)")
    return moment
