"""Where an edit's diff spends its time, phase by phase, beside GNU `diff -u` on the same files.

The input is the Reference section's: 20,000 lines with 200 scattered changes (`--repeated`:
brace-style code, half its lines blank or `}`). Each phase is timed alone on what the phases
before it produced, min / median / max of `--rounds` rounds.

    python bench/diff_phases.py
    python bench/diff_phases.py --repeated --rounds 31

Exit codes: 0 when it ran, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench_reference import FULL, GnuDiff, diff_inputs

from ctxconf.reference import Session
from ctxconf.reference.context import diff as diff_module
from ctxconf.reference.context.config import ContextConfig


def phases(before: str, after: str) -> list[tuple[str, Callable[[], object]]]:
    config = ContextConfig.load()
    d = diff_module
    a = d._lines(before)
    b = d._lines_like(after, dict(zip(a, a, strict=True)))
    start = d._snake(a, b, 0, 0)
    rest_a: list[object] = a[start:]
    rest_b: list[object] = b[start:]
    known = d.some_edit_length(rest_a, rest_b, config.diff_max_edit, len(rest_a) + len(rest_b))

    def search() -> object:  # on copies: the search marks the ends of its lists
        return d._search([*rest_a], [*rest_b], known)

    return [
        ("split the old text", lambda: d._lines(before)),
        (
            "split the new text onto the old one's lines",
            lambda: d._lines_like(after, dict(zip(a, a, strict=True))),
        ),
        (
            "walk to a known script",
            lambda: d.some_edit_length(
                rest_a, rest_b, config.diff_max_edit, len(rest_a) + len(rest_b)
            ),
        ),
        (
            "find the lines with no like line",
            lambda: (d._alone(rest_a, rest_b), d._alone(rest_b, rest_a)),
        ),
        ("search and trace (lines with no like line included)", search),
        (
            "`unified_diff` in all",
            lambda: d.unified_diff(
                before, after, config.diff_context, config.texts, config.diff_max_edit
            ),
        ),
        ("`Session().edit` in all", lambda: Session(config).edit("src/big.py", before, after)),
    ]


def _ms(times: Sequence[float]) -> str:
    return " / ".join(f"{t * 1000:.2f}" for t in (min(times), statistics.median(times), max(times)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeated", action="store_true", help="brace-style code")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds is at least 1")
    before, after = diff_inputs(FULL, args.repeated)
    with tempfile.TemporaryDirectory(prefix="ctxconf-phases-") as folder:
        gnu = GnuDiff(before, after, Path(folder), "phases")
        steps = [*phases(before, after), ("GNU `diff -u`, the whole process", gnu.prepare())]
        times: dict[str, list[float]] = {name: [] for name, _ in steps}
        for _ in range(args.rounds):
            for name, call in steps:
                started = time.perf_counter()
                call()
                times[name].append(time.perf_counter() - started)
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"{'repeated' if args.repeated else 'unique'} lines, {FULL.diff_lines:,} lines, "
        f"{FULL.diff_changes} changes; {args.rounds} rounds; load average {load}\n"
    )
    print("| phase | min / median / max (ms) |\n|---|---:|")
    for name, seconds in times.items():
        print(f"| {name} | {_ms(seconds)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
