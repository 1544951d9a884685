"""Benchmarks of the runner: one suite over each transport, and workers against a slow one.

1. Transports. The bundled cases repeated `--repeat` (100) times, run against the reference in
   process (`--impl reference`), over JSON lines (`cmd:python -m ctxconf serve --stdio`) and over
   HTTP (one `ctxconf serve --http` for the whole benchmark), in one run, the three taking turns
   round by round so that a busy machine slows all alike. Each timing is a whole `run_suite`:
   starting the implementation, hello, every case, its verdicts, and the results file written.
2. Workers. An implementation that sleeps 20 ms per case, over JSON lines, with `-j 1` and
   `-j 2` on the same cases.
3. The bundled suite as a user runs it: `ctxconf run --impl reference` with its JSON results and
   HTML report, as a subprocess; its summary line, and each case's duration from the results.

Times are min / median / max of `--rounds` (5) rounds. Targets: JSON lines within 2x of in
process, HTTP within 4x; `-j 2` at least 1.7x as fast as `-j 1`; no case of the bundled suite
over 20 ms against the reference.

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
import re
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

import readme  # a sibling script, not a package

from ctxconf.runner.engine import RunOptions, run_suite
from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.userfiles import limits
from ctxconf.userfiles.atomic import write_text_atomic

README = Path(__file__).parent / "README.md"
START_MARKER = "<!-- runner:start -->"
END_MARKER = "<!-- runner:end -->"

TRANSPORT_TARGETS = {"JSON lines": 2.0, "HTTP": 4.0}  # at most this many times in process
WORKERS_TARGET = 1.7  # -j 2 at least this many times as fast as -j 1
CASE_TARGET = 0.020  # seconds: no bundled case slower against the reference
_SUMMARY = re.compile(r"^\d+ passed, \d+ failed.* in [\d.]+ s$", re.MULTILINE)
SLEEP = 0.020

SLEEPY = f'''
"""The reference over JSON lines, {SLEEP * 1000:g} ms slower per case."""
import json, sys, time
from ctxconf.userfiles.limits import parse_json
from ctxconf.runner.reference_impl import hello, run
for raw in sys.stdin.buffer:
    message = parse_json(raw, exact=True)
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

    @property
    def spread(self) -> str:
        """min / median / max, in seconds."""
        return " / ".join(f"{t:.2f}" for t in (min(self.seconds), self.median, max(self.seconds)))


@dataclass(frozen=True)
class SuiteRuns:
    """`ctxconf run --impl reference` over the bundled suite, several times."""

    summaries: list[str]  # the summary line of each run
    wall: list[float]  # seconds, the whole command
    durations: dict[str, list[float]]  # case -> its duration in each run


def bench_suite(folder: Path, rounds: int) -> SuiteRuns:
    summaries: list[str] = []
    wall: list[float] = []
    durations: dict[str, list[float]] = {}
    for index in range(rounds):
        results, report = folder / f"suite-{index}.json", folder / f"suite-{index}.html"
        started = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "ctxconf",
                "run",
                "--impl",
                "reference",
                "--json",
                str(results),
                "--html",
                str(report),
            ],
            capture_output=True,
            text=True,
            check=False,
            cwd=folder,
        )
        wall.append(time.perf_counter() - started)
        found = _SUMMARY.search(done.stdout + done.stderr)
        if done.returncode != 0 or found is None:
            raise SystemExit(f"runner_bench: ctxconf run failed:\n{done.stdout}{done.stderr}")
        summaries.append(found.group())
        for case in json.loads(results.read_text(encoding="utf-8"))["cases"]:
            durations.setdefault(f"{case['area']}/{case['name']}", []).append(case["duration"])
    return SuiteRuns(summaries, wall, durations)


def suite_table(runs: SuiteRuns) -> list[str]:
    def ms(seconds: float) -> str:
        return f"{seconds * 1000:.1f}"

    slowest = sorted(runs.durations.items(), key=lambda item: -statistics.median(item[1]))
    every = [t for times in runs.durations.values() for t in times]
    over = sorted(
        name for name, times in runs.durations.items() if statistics.median(times) > CASE_TARGET
    )
    cases = len(runs.durations)
    wall = " / ".join(
        f"{t:.2f}" for t in (min(runs.wall), statistics.median(runs.wall), max(runs.wall))
    )
    count = len(runs.wall)
    lines = [
        f"`ctxconf run --impl reference --json … --html …` on the bundled suite ({cases} "
        f"cases), {count} {'run' if count == 1 else 'runs'}: the whole command {wall} s "
        "(min / median / max), start-up and report included; its summary lines: "
        + "; ".join(f"`{line}`" for line in runs.summaries)
        + ".",
        "",
        f"Per case (the results' `duration`, ms), over all runs: min {ms(min(every))}, median "
        f"{ms(statistics.median(every))}, max {ms(max(every))}; cases whose median is over "
        f"{CASE_TARGET * 1000:g} ms: {', '.join(over) if over else 'none'} "
        f"({_mark(not over)}). The slowest by median:",
        "",
        "| case | min / median / max (ms) |",
        "|---|---:|",
    ]
    for name, times in slowest[:5]:
        lines.append(
            f"| {name} | {ms(min(times))} / {ms(statistics.median(times))} / {ms(max(times))} |"
        )
    return lines


def _repeated_cases(
    folder: Path, repeat: int, limit: int | None = None
) -> tuple[tuple[Path, ...], int]:
    """Case files holding every bundled case `repeat` times, under names made unique (at most
    `limit` cases of each file)."""
    paths: list[Path] = []
    count = 0
    for source_path in sorted((bundled_spec_dir() / "conformance").glob("*.json")):
        source = limits.parse_json(source_path.read_text(encoding="utf-8"), exact=True)
        cases = [
            {**case, "name": f"{case['name']}-{round_}"}
            for round_ in range(repeat)
            for case in source["cases"]
        ][:limit]
        path = folder / f"{source_path.stem}-x{repeat}.json"
        path.write_text(limits.dumps({**source, "cases": cases}), encoding="utf-8")
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


def bench_workers(folder: Path, repeat: int, rounds: int, limit: int | None = None) -> list[Timing]:
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
        "| transport | `--impl` | cases | min / median / max (s) | cases/s (median) "
        "| vs in process | target |",
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
            f"| {timing.label} | `{impl}` | {timing.cases} | {timing.spread} "
            f"| {timing.cases / timing.median:,.0f} | {ratio:.2f}x | {goal} |"
        )
    return rows


def workers_table(timings: Sequence[Timing]) -> list[str]:
    one, two = timings
    speedup = one.median / two.median
    return [
        f"| workers | cases ({SLEEP * 1000:g} ms each) | min / median / max (s) | speed-up "
        "(medians) | target |",
        "|---|---:|---:|---:|---|",
        f"| {one.label} | {one.cases} | {one.spread} | 1.00x | — |",
        f"| {two.label} | {two.cases} | {two.spread} | {speedup:.2f}x "
        f"| ≥ {WORKERS_TARGET:g}x: {_mark(speedup >= WORKERS_TARGET)} |",
    ]


def section(
    command: str,
    transports: Sequence[Timing],
    workers: Sequence[Timing],
    suite: SuiteRuns,
    load_before: str,
) -> str:
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
        f"`{command}`, {today}, {machine}; load average (1, 5, 15 min) {load_before} before, "
        f"{_load()} after. {rounds} rounds of each; each time is a whole run (start, hello, "
        "every case, verdicts, results file).",
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
        "",
        *suite_table(suite),
        END_MARKER,
    ]
    return "\n".join(lines) + "\n"


def _load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def write_section(readme: Path, text: str, markers: tuple[str, str]) -> None:
    """Replace the section between `markers` (`text` holds them too), or append it; other
    sections stay. A README not there yet starts with its title."""
    start_marker, end_marker = markers
    current = readme.read_text(encoding="utf-8") if readme.exists() else "# Benchmarks\n"
    if start_marker in current and end_marker in current:
        head, rest = current.split(start_marker, 1)
        tail = rest.split(end_marker, 1)[1].removeprefix("\n")
        updated = head + text + tail
    else:
        updated = current.rstrip("\n") + "\n\n" + text
    # In one move: an interrupted write must not lose the hand-written text around the sections.
    write_text_atomic(readme, updated)


def write_readme(text: str) -> None:
    """Replace the Runner section of the README, or append it."""
    write_section(README, text, (START_MARKER, END_MARKER))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=100, help="times the suite is repeated")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per timing (median)")
    parser.add_argument("--worker-repeat", type=int, default=2, help="suite repeats for -j")
    parser.add_argument("--quick", action="store_true", help="small sizes, one round")
    parser.add_argument("--write-readme", action="store_true", help="update bench/README.md")
    args = parser.parse_args(argv)
    if args.write_readme and readme.refused(README):
        return 2
    limit = None
    if args.quick:
        args.repeat, args.rounds, args.worker_repeat, limit = 1, 1, 1, 10
    if min(args.repeat, args.rounds, args.worker_repeat) < 1:
        parser.error("--repeat, --rounds and --worker-repeat are at least 1")
    command = "python bench/runner_bench.py" + (" --quick" if args.quick else "")
    load_before = _load()
    with tempfile.TemporaryDirectory(prefix="ctxconf-runner-bench-") as temporary:
        folder = Path(temporary)
        transports = bench_transports(folder, args.repeat, args.rounds)
        workers = bench_workers(folder, args.worker_repeat, args.rounds, limit)
        suite = bench_suite(folder, args.rounds)
    text = section(command, transports, workers, suite, load_before)
    print(text.replace(START_MARKER + "\n", "").replace(END_MARKER + "\n", ""), end="")
    if args.write_readme and not readme.written(lambda: write_readme(text)):
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
