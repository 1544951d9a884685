"""The report's cost at an earlier commit beside the working tree's, on the same inputs.

The report modules and templates of REV (`git show REV:runner/...`) are laid out as a package of
their own in a temporary folder; each measurement runs in a fresh process: build the input
(`report_bench.many_failing` or `report_bench.huge_output`), then time `build_view` and
`render_html` alone, and read the maximum resident set before and after.

    python bench/report_revisions.py 02003d5                        # 10,000 cases, 2 and 10 MB
    python bench/report_revisions.py 02003d5 --cases 1000 --output-mb 1

Prints one markdown table. Exit codes: 0 done, 1 a measurement failed, 2 for usage.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = [
    "report.py", "report_diff.py", "report_compare.py", "report_markdown.py", "results.py",
    "errors.py", "templates/report.css", "templates/report.html.j2", "templates/report.js",
]  # fmt: skip

MEASURE = """
import json, resource, sys, time
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from report_bench import huge_output, many_failing
if sys.argv[3] == "-":
    from ctxconf.runner import report
else:
    from earlier_runner import report
kind, size = sys.argv[4], int(sys.argv[5])
doc = many_failing(size) if kind == "cases" else huge_output(size)
rules = report.spec_rules_for(doc)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1000
wall, cpu = time.perf_counter(), time.process_time()
page = report.render_html(report.build_view(doc, rules))
print(json.dumps({
    "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu, "before": before,
    "after": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1000,
    "page": len(page.encode()),
}))
"""


def earlier_package(rev: str, folder: Path) -> None:
    package = folder / "earlier_runner"
    (package / "templates").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    for name in FILES:
        text = subprocess.run(
            ["git", "show", f"{rev}:runner/{name}"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        (package / name).write_text(text, encoding="utf-8")


def measure(folder: Path, which: str, kind: str, size: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(folder), str(ROOT / "bench"), which, kind, str(size)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{which} {kind} {size}: {done.stderr.strip()[-2000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("rev", help="the earlier commit")
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--output-mb", type=int, nargs="+", default=[2, 10])
    args = parser.parse_args(argv)
    inputs = [("cases", args.cases)] + [("output", size) for size in args.output_mb]
    print("| input | code | wall time | CPU time | max RSS (before → after) | page |")
    print("|---|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="ctxconf-report-rev-") as temporary:
        folder = Path(temporary)
        try:
            earlier_package(args.rev, folder)
            for kind, size in inputs:
                what = f"{size:,} failing cases" if kind == "cases" else f"one {size:,} MB output"
                for label, which in ((args.rev, "earlier"), ("working tree", "-")):
                    f = measure(folder, which, kind, size)
                    rss = f"{f['before']:,.0f} → {f['after']:,.0f} MB"
                    print(
                        f"| {what} | {label} | {f['wall']:.2f} s | {f['cpu']:.2f} s | {rss} "
                        f"| {f['page'] / 1e6:,.1f} MB |",
                        flush=True,
                    )
        except (RuntimeError, subprocess.CalledProcessError) as error:
            print(f"report_revisions: {error}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
