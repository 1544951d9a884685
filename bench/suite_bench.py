"""The test suite itself: how long the README's test command and the quick tier take, here.

Each tier runs as a developer runs it, `python -m pytest` in the checkout with the checkout's own
settings (this one's: every core, pytest-xdist), and is timed from outside: wall seconds, and the
CPU seconds of every process it started. `--busy N` runs N busy loops beside it (a loaded
machine); `--against REV` first runs the same tiers in a worktree of REV with a venv of its own
(the suite before a change, beside the one after, in one run of this script).

    python bench/suite_bench.py                    # the full suite and the quick tier, here
    python bench/suite_bench.py --busy 2           # with two busy loops beside it
    python bench/suite_bench.py --against REV      # REV's tiers first, then this checkout's
    python bench/suite_bench.py --write-readme     # also update bench/README.md's section

Exit codes: 0 when every run ended (whatever the suite's own verdict: it is reported), 2 for
usage errors.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import readme
from bench_reference import README, machine_lines, publish

ROOT = Path(__file__).resolve().parent.parent
START_MARKER = "<!-- suite:start -->"
END_MARKER = "<!-- suite:end -->"
TIERS = {"full": (), "quick": ("-m", "not slow")}
# pytest's closing line: "== 2118 passed, 2 skipped, 1 failed in 301.2s (0:05:01) =="
_COUNTS = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)")


@dataclass(frozen=True)
class SuiteRun:
    label: str  # which checkout: "this checkout" or the revision
    tier: str
    busy: int
    wall: float
    cpu: float  # user + system seconds of every process the run started
    counts: dict[str, int]
    exit_code: int
    failures: tuple[str, ...] = ()  # pytest's summary lines of what failed or erred

    @property
    def green(self) -> bool:
        return self.exit_code == 0 and self.counts.get("failed", 0) == 0


def counts_of(output: str) -> dict[str, int]:
    """The counts of pytest's closing line (the last line that has any)."""
    for line in reversed(output.splitlines()):
        found = _COUNTS.findall(line)
        if found:
            return {("errors" if kind == "error" else kind): int(n) for n, kind in found}
    return {}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@contextmanager
def busy_loops(count: int) -> Iterator[None]:
    """`count` processes that spin until the block ends (ended by their own ids)."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def run_tier(checkout: Path, python: Path, label: str, tier: str, busy: int) -> SuiteRun:
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *TIERS[tier]]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    with busy_loops(busy):
        cpu_before = _children_cpu()
        started = time.monotonic()
        done = subprocess.run(
            command, cwd=checkout, env=env, capture_output=True, text=True, check=False
        )
        wall = time.monotonic() - started
        # RUSAGE_CHILDREN counts only children already waited for: the suite's processes, not
        # the busy loops still spinning.
        cpu = _children_cpu() - cpu_before
    counts = counts_of(done.stdout)
    failures = tuple(
        line for line in done.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))
    )
    return SuiteRun(label, tier, busy, wall, cpu, counts, done.returncode, failures)


def worktree_of(rev: str, under: Path) -> tuple[Path, Path]:
    """A worktree of `rev` with a venv holding its test extras; (checkout, its python)."""
    checkout = under / "checkout"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(checkout), rev],
        check=True,
        capture_output=True,
    )
    venv = checkout / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "-e", ".[test]"], cwd=checkout, check=True
    )
    return checkout, python


def remove_worktree(checkout: Path) -> None:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(checkout)],
        check=False,
        capture_output=True,
    )


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {seconds % 60:04.1f} s"


def _counts_text(counts: dict[str, int]) -> str:
    order = ("passed", "failed", "errors", "skipped", "deselected", "xfailed", "xpassed")
    return ", ".join(f"{counts[k]:,} {k}" for k in order if counts.get(k))


def table(runs: Sequence[SuiteRun]) -> list[str]:
    lines = [
        "| checkout | tier | busy loops | wall | CPU | CPU / wall | tests |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for run in runs:
        verdict = _counts_text(run.counts) or f"exit {run.exit_code}"
        if not run.green:
            verdict += f" (exit {run.exit_code})"
        lines.append(
            f"| {run.label} | {run.tier} | {run.busy} | {_minutes(run.wall)} | "
            f"{_minutes(run.cpu)} | {run.cpu / run.wall:.2f} | {verdict} |"
        )
    return lines


def section(runs: Sequence[SuiteRun], command: str) -> str:
    parts = [
        "## The test suite",
        "",
        "How long a developer waits: the README's test command (the full suite) and the quick "
        'tier (`-m "not slow"`), each timed from outside as one command. CPU is the user and '
        "system time of every process the run started; CPU / wall above 1 is the cores at work.",
        "",
        *machine_lines(),
        f"- Command: `{command}`",
        "",
        *table(runs),
        "",
    ]
    return "\n".join(parts) + "\n"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tier", choices=(*TIERS, "both"), default="both")
    parser.add_argument("--busy", type=int, default=0, metavar="N", help="busy loops beside it")
    parser.add_argument("--against", metavar="REV", help="also run REV's suite, first")
    parser.add_argument("--write-readme", action="store_true", help="update bench/README.md")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.write_readme and readme.refused(README):
        return 2
    if args.busy < 0:
        print("suite_bench: --busy takes a count of 0 or more", file=sys.stderr)
        return 2
    tiers = list(TIERS) if args.tier == "both" else [args.tier]
    runs: list[SuiteRun] = []
    with tempfile.TemporaryDirectory(prefix="suite-bench-") as scratch:
        targets = []
        if args.against:
            checkout, python = worktree_of(args.against, Path(scratch))
            targets.append((checkout, python, args.against))
        targets.append((ROOT, Path(sys.executable), "this checkout"))
        try:
            for checkout, python, label in targets:
                for tier in tiers:
                    run = run_tier(checkout, python, label, tier, args.busy)
                    runs.append(run)
                    print(table([run])[-1], flush=True)
                    for line in run.failures:  # what went red, so that it can be run again
                        print(f"  {line}", file=sys.stderr, flush=True)
        finally:
            if args.against:
                remove_worktree(targets[0][0])
    command = "python bench/suite_bench.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = section(runs, command.strip())
    return 0 if publish("\n" + text, (START_MARKER, END_MARKER), args.write_readme) else 2


if __name__ == "__main__":
    sys.exit(main())
