"""The cost of the HTML report in a whole run: `ctxconf run` with the report against `--json` only.

The bundled cases are repeated until there are `--cases` (10,000) of them; each round runs the
command twice as a user does (a subprocess, the reference in process), once with `--json` alone
and once with `--json` and `--html`, taking turns so that a busy machine slows both alike.
Target: the run with the report within 1.3x of the run without.

    python bench/report_run_ratio.py                # 10,000 cases, 3 rounds
    python bench/report_run_ratio.py --cases 2000   # a quicker look
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from runner_bench import _repeated_cases  # a sibling script, not a package

TARGET = 1.3


def _time(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(
            f"report_run_ratio: {' '.join(argv)} exited {done.returncode}\n{done.stderr}"
        )
    return seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000, help="how many cases (10,000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (3)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        _, bundled = _repeated_cases(folder, 1)  # how many cases one copy of the suite holds
        repeat = max(1, math.ceil(args.cases / bundled))
        files, count = _repeated_cases(folder, repeat)
        base = [sys.executable, "-m", "ctxconf", "run", "--impl", "reference", "-q", "--cases"]
        base += [str(path) for path in files]
        json_only = [*base, "--json", str(folder / "a.json")]
        with_html = [*base, "--json", str(folder / "b.json"), "--html", str(folder / "b.html")]
        plain: list[float] = []
        report: list[float] = []
        for _ in range(args.rounds):
            plain.append(_time(json_only))
            report.append(_time(with_html))
        page = (folder / "b.html").stat().st_size
    ratio = statistics.median(report) / statistics.median(plain)
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())

    def spread(times: list[float]) -> str:
        return " / ".join(f"{t:.2f}" for t in (min(times), statistics.median(times), max(times)))

    print(f"{count:,} cases, {args.rounds} rounds, load average {load}")
    print(f"| run | min / median / max, s |\n|---|---|\n| --json only | {spread(plain)} |")
    print(f"| --json and --html | {spread(report)} |")
    verdict = "PASS" if ratio <= TARGET else "MISS"
    print(f"ratio {ratio:.2f}x (target <= {TARGET}x): {verdict}; page {page / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
