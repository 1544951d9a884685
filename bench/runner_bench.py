"""Benchmarks of the runner: one suite over each transport, and workers against a slow one.

1. Transports. The bundled cases repeated `--repeat` (100) times, run against the reference in
   process (`--impl reference`), over JSON lines (`cmd:python -m ctxconf serve --stdio`) and over
   HTTP (one `ctxconf serve --http` for the whole benchmark), in one run, the three taking turns
   round by round so that a busy machine slows all alike. Each timing is a whole `run_suite`:
   starting the implementation, hello, every case, its verdicts, and the results file written.
2. Workers. An implementation that sleeps 20 ms per case, over JSON lines, with `-j 1` and
   `-j 2` on the same cases.

Times are medians of `--rounds` (5) rounds. Targets: JSON lines within 2x of in process, HTTP
within 4x; `-j 2` at least 1.7x as fast as `-j 1`.

    python bench/runner_bench.py                  # full sizes, prints markdown tables
    python bench/runner_bench.py --quick          # small sizes, a smoke run of a few seconds
    python bench/runner_bench.py --write-readme   # also update the Runner section of README.md

Exit codes: 0 when every benchmark ran and every run passed every case (whether the targets were
met or not), 1 when a run did not pass every case, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ctxconf.paths import bundled_spec_dir
from ctxconf.runner.engine import RunOptions, run_suite

README = Path(__file__).parent / "README.md"
START_MARKER = "<!-- runner:start -->"
END_MARKER = "<!-- runner:end -->"

TRANSPORT_TARGETS = {"JSON lines": 2.0, "HTTP": 4.0}  # at most this many times in process
WORKERS_TARGET = 1.7  # -j 2 at least this many times as fast as -j 1
SLEEP = 0.020

SLEEPY = f'''
"""The reference over JSON lines, {SLEEP * 1000:g} ms slower per case."""
import json, sys, time
from ctxconf.runner.reference_impl import hello, run
for raw in sys.stdin.buffer:
    message = json.loads(raw)
    if message["cmd"] == "stop":
        break
    if message["cmd"] == "run":
        time.sleep({SLEEP})
    answer = hello() if message["cmd"] == "hello" else run(message)
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
'''


@dataclass(frozen=True)
class Timing:
    label: str
    impl: str
    cases: int
    seconds: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def _repeated_cases(
    folder: Path, repeat: int, limit: int | None = None
) -> tuple[tuple[Path, ...], int]:
    """Case files holding every bundled case `repeat` times, under names made unique (at most
    `limit` cases of each file)."""
    paths: list[Path] = []
    count = 0
    for source_path in sorted((bundled_spec_dir() / "conformance").glob("*.json")):
        source = json.loads(source_path.read_text(encoding="utf-8"))
        cases = [
            {**case, "name": f"{case['name']}-{round_}"}
            for round_ in range(repeat)
            for case in source["cases"]
        ][:limit]
        path = folder / f"{source_path.stem}-x{repeat}.json"
        path.write_text(json.dumps({**source, "cases": cases}), encoding="utf-8")
        paths.append(path)
        count += len(cases)
    return tuple(paths), count


def _time_run(impl: str, cases: tuple[Path, ...], results: Path, jobs: int = 1) -> float:
    started = time.perf_counter()
    done = run_suite(
        RunOptions(impl=impl, case_files=cases, jobs=jobs, timeout=30), results_path=results
    )
    seconds = time.perf_counter() - started
    if done.footer.totals["pass"] != len(done.cases):
        raise SystemExit(f"runner_bench: {impl} did not pass every case: {done.footer.totals}")
    return seconds


@contextmanager
def _http_server() -> Iterator[str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "ctxconf", "serve", "--http", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    try:
        yield server.stdout.readline().strip()
    finally:
        server.terminate()
        server.wait()
        server.stdout.close()


def _rounds(runs: Sequence[tuple[str, str, Callable[[], float]]], rounds: int) -> list[Timing]:
    """Each run once per round, in turn; then the timings of each."""
    seconds: dict[str, list[float]] = {label: [] for label, _, _ in runs}
    for _ in range(rounds):
        for label, _, run in runs:
            seconds[label].append(run())
    return [Timing(label, impl, 0, seconds[label]) for label, impl, _ in runs]


def bench_transports(folder: Path, repeat: int, rounds: int) -> list[Timing]:
    cases, count = _repeated_cases(folder, repeat)
    results = folder / "results.json"
    stdio = f"cmd:{shlex.quote(sys.executable)} -m ctxconf serve --stdio"
    with _http_server() as url:
        runs = [
            ("in process", "reference", lambda: _time_run("reference", cases, results)),
            ("JSON lines", stdio, lambda: _time_run(stdio, cases, results)),
            ("HTTP", url, lambda: _time_run(url, cases, results)),
        ]
        _time_run("reference", cases, results)  # warm: imports, caches, file system
        timings = _rounds(runs, rounds)
    return [Timing(t.label, t.impl, count, t.seconds) for t in timings]


def bench_workers(
    folder: Path, repeat: int, rounds: int, limit: int | None = None
) -> list[Timing]:
    cases, count = _repeated_cases(folder, repeat, limit)
    script = folder / "sleepy.py"
    script.write_text(SLEEPY, encoding="utf-8")
    impl = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    results = folder / "results.json"
    runs = [
        ("-j 1", impl, lambda: _time_run(impl, cases, results, jobs=1)),
        ("-j 2", impl, lambda: _time_run(impl, cases, results, jobs=2)),
    ]
    return [Timing(t.label, t.impl, count, t.seconds) for t in _rounds(runs, rounds)]


def _mark(ok: bool) -> str:
    return "met" if ok else "**missed**"


def transport_table(timings: Sequence[Timing]) -> list[str]:
    base = timings[0].median
    rows = [
        "| transport | `--impl` | cases | median | cases/s | vs in process | target |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for timing in timings:
        ratio = timing.median / base
        target = TRANSPORT_TARGETS.get(timing.label)
        goal = f"≤ {target:g}x: {_mark(ratio <= target)}" if target else "—"
        impl = timing.impl
        if impl.startswith("cmd:"):
            impl = "cmd:python -m ctxconf serve --stdio"
        elif impl.startswith("http://"):
            impl = "http://127.0.0.1:PORT (ctxconf serve --http)"
        rows.append(
            f"| {timing.label} | `{impl}` | {timing.cases} | {timing.median:.2f} s "
            f"| {timing.cases / timing.median:,.0f} | {ratio:.2f}x | {goal} |"
        )
    return rows


def workers_table(timings: Sequence[Timing]) -> list[str]:
    one, two = timings
    speedup = one.median / two.median
    return [
        f"| workers | cases ({SLEEP * 1000:g} ms each) | median | speed-up | target |",
        "|---|---:|---:|---:|---|",
        f"| {one.label} | {one.cases} | {one.median:.2f} s | 1.00x | — |",
        f"| {two.label} | {two.cases} | {two.median:.2f} s | {speedup:.2f}x "
        f"| ≥ {WORKERS_TARGET:g}x: {_mark(speedup >= WORKERS_TARGET)} |",
    ]


def section(command: str, transports: Sequence[Timing], workers: Sequence[Timing]) -> str:
    today = datetime.date.today().isoformat()
    machine = (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}"
    )
    rounds = len(transports[0].seconds)
    lines = [
        START_MARKER,
        "## Runner",
        "",
        f"`{command}`, {today}, {machine}. Medians of {rounds} rounds; each time is a whole run"
        " (start, hello, every case, verdicts, results file).",
        "",
        "The bundled cases repeated, against the reference over each transport:",
        "",
        *transport_table(transports),
        "",
        "Over JSON lines the implementation works in a process of its own, on another core while"
        " the runner judges and writes, so it can beat a run in process.",
        "",
        "An implementation that sleeps per case, over JSON lines, with one and two workers:",
        "",
        *workers_table(workers),
        END_MARKER,
    ]
    return "\n".join(lines) + "\n"


def write_readme(text: str) -> None:
    """Replace the Runner section between its markers, or append it; other sections stay."""
    current = README.read_text(encoding="utf-8") if README.exists() else "# Benchmarks\n"
    if START_MARKER in current and END_MARKER in current:
        head, rest = current.split(START_MARKER, 1)
        tail = rest.split(END_MARKER, 1)[1].removeprefix("\n")
        updated = head + text + tail
    else:
        updated = current.rstrip("\n") + "\n\n" + text
    README.write_text(updated, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=100, help="times the suite is repeated")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per timing (median)")
    parser.add_argument("--worker-repeat", type=int, default=2, help="suite repeats for -j")
    parser.add_argument("--quick", action="store_true", help="small sizes, one round")
    parser.add_argument("--write-readme", action="store_true", help="update bench/README.md")
    args = parser.parse_args(argv)
    limit = None
    if args.quick:
        args.repeat, args.rounds, args.worker_repeat, limit = 1, 1, 1, 10
    if min(args.repeat, args.rounds, args.worker_repeat) < 1:
        parser.error("--repeat, --rounds and --worker-repeat are at least 1")
    command = "python bench/runner_bench.py" + (" --quick" if args.quick else "")
    with tempfile.TemporaryDirectory(prefix="ctxconf-runner-bench-") as temporary:
        folder = Path(temporary)
        transports = bench_transports(folder, args.repeat, args.rounds)
        workers = bench_workers(folder, args.worker_repeat, args.rounds, limit)
    text = section(command, transports, workers)
    print(text.replace(START_MARKER + "\n", "").replace(END_MARKER + "\n", ""), end="")
    if args.write_readme:
        write_readme(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
