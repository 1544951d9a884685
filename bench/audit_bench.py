"""Benchmark of `ctxconf audit` at the scale of a user's records: a synthetic home of Claude Code
transcripts and Codex rollouts (audit_corpus.py), read by `ctxconf audit DIR --json` as a
subprocess beside `wc -l` over the same files (the floor: one pass over the bytes), medians of
interleaved runs; its peak resident set at two sizes of corpus, and at the larger size with the
same requests as the smaller (bigger tool results), to show what memory grows with; and its
totals held against ccusage's, installed from npm into a temporary prefix, per session.

    python bench/audit_bench.py                  # 100 MB, 3 runs each; memory at 50 and 200 MB
    python bench/audit_bench.py --size 3000 --sessions 500   # what users have
    python bench/audit_bench.py --quick          # a few MB, for a smoke run
    python bench/audit_bench.py --no-ccusage     # without the npm install
    python bench/audit_bench.py --write-readme   # also update bench/README.md's section

Exit codes: 0 when every measurement ran (ccusage not installable is said, not a failure), 1
when the audit did not read what was written, 2 for usage or an audit that failed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import readme  # a sibling script, not a package
from audit_corpus import Corpus, audit_sums, generate
from bench_reference import README, machine_lines, publish

START_MARKER = "<!-- audit:start -->"
END_MARKER = "<!-- audit:end -->"
CCUSAGE = "ccusage@20.0.24"  # a release with a linux-x64 build in the registry
MB = 1_000_000
SESSION_BYTES = 6 * MB  # 3 GB in 500 sessions


@dataclass
class Timing:
    audit: list[float] = field(default_factory=list)
    floor: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Memory:
    label: str
    bytes: int
    requests: int
    peak_kb: int
    seconds: float


@dataclass
class Ccusage:
    version: str | None = None
    error: str | None = None
    seconds: float = 0.0
    claude: dict[str, Any] = field(default_factory=dict)
    codex: dict[str, Any] = field(default_factory=dict)


def audit_command(corpus: Corpus, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "ctxconf",
        "audit",
        "--home",
        str(corpus.home),
        *map(str, corpus.roots()),
        "--json",
        str(out),
    ]


def run_audit(corpus: Corpus, out: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(audit_command(corpus, out), capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):  # 1: a gate; none is set, but a pass is not the point
        raise RuntimeError(f"ctxconf audit exited {done.returncode}: {done.stderr[-2000:]}")
    return seconds


def run_floor(corpus: Corpus) -> float:
    start = time.perf_counter()
    subprocess.run(
        ["wc", "-l", *map(str, corpus.files)], capture_output=True, check=True, text=True
    )
    return time.perf_counter() - start


def timed(corpus: Corpus, runs: int, out: Path) -> Timing:
    """The audit and the floor, one after the other, `runs` times (after one of each unmeasured,
    so that both read the files from the page cache)."""
    timing = Timing()
    run_floor(corpus)
    run_audit(corpus, out)
    for _ in range(runs):
        timing.audit.append(run_audit(corpus, out))
        timing.floor.append(run_floor(corpus))
    return timing


def peak_rss(corpus: Corpus, out: Path) -> tuple[int, float]:
    """The audit's maximum resident set in kB, as /usr/bin/time reports it, and its seconds."""
    command = audit_command(corpus, out)
    report = out.with_suffix(".rss")
    start = time.perf_counter()
    if Path("/usr/bin/time").exists():
        wrapped = ["/usr/bin/time", "-f", "%M", "-o", str(report), *command]
        subprocess.run(wrapped, capture_output=True, check=False)
        seconds = time.perf_counter() - start
        return int(report.read_text().split()[-1]), seconds
    script = (
        "import resource, runpy, sys; sys.argv = sys.argv[1:]\n"
        "try:\n    runpy.run_module('ctxconf', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        f"open({str(report)!r}, 'w').write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))"
    )
    subprocess.run([sys.executable, "-c", script, *command[2:]], capture_output=True, check=False)
    return int(report.read_text()), time.perf_counter() - start


def check_read(corpus: Corpus, doc: dict[str, Any]) -> list[str]:
    """Where what the audit read differs from what the generator wrote; empty when it agrees."""
    wrote = {(s.source, s.session): s for s in corpus.sessions}
    read = {(s.source, s.session): s for s in audit_sums(doc)}
    wrong = [f"session {key} not read" for key in wrote.keys() - read.keys()]
    wrong += [f"session {key} not written" for key in read.keys() - wrote.keys()]
    for key in wrote.keys() & read.keys():
        a, b = wrote[key], read[key]
        for name in ("requests", "uncached", "read", "written_5m", "written_1h", "output"):
            if getattr(a, name) != getattr(b, name):
                wrong.append(f"{key} {name}: wrote {getattr(a, name)}, read {getattr(b, name)}")
    if doc["problems"]:
        wrong.append(f"{len(doc['problems'])} problem(s), the first: {doc['problems'][0]}")
    return wrong


# ccusage


def install_ccusage(prefix: Path) -> tuple[Path | None, str | None]:
    npm = shutil.which("npm")
    if npm is None:
        return None, "npm is not on PATH"
    done = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", CCUSAGE],
        capture_output=True,
        text=True,
        check=False,
    )
    binary = prefix / "node_modules" / ".bin" / "ccusage"
    if done.returncode != 0 or not binary.exists():
        said = (done.stderr or done.stdout).strip().splitlines()
        return None, f"`npm install {CCUSAGE}` exited {done.returncode}: " + " / ".join(said[-3:])
    return binary, None


def ccusage_report(binary: Path, home: Path, agent: str) -> dict[str, Any]:
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""), "NO_COLOR": "1"}
    env["CODEX_HOME"] = str(home / ".codex")
    done = subprocess.run(
        [str(binary), agent, "session", "--json", "--offline"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"ccusage {agent} session exited {done.returncode}: {done.stderr[-500:]}"
        )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def run_ccusage(corpus: Corpus, prefix: Path) -> Ccusage:
    found = Ccusage()
    binary, found.error = install_ccusage(prefix)
    if binary is None:
        return found
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
    found.version = version.stdout.strip() or CCUSAGE
    if not found.version.startswith("ccusage"):
        found.version = f"ccusage {found.version}"
    try:
        start = time.perf_counter()
        found.claude = ccusage_report(binary, corpus.home, "claude")
        found.codex = ccusage_report(binary, corpus.home, "codex")
        found.seconds = time.perf_counter() - start
    except (RuntimeError, ValueError) as error:
        found.error = str(error)
    return found


@dataclass
class Side:
    """One session's or one source's figures as a tool reports them; None: N/A."""

    sessions: int = 0
    input: int = 0
    output: int = 0
    read: int = 0
    write: int | None = 0
    cost: float | None = 0.0

    def add(self, other: Side) -> None:
        self.sessions += other.sessions
        self.input += other.input
        self.output += other.output
        self.read += other.read
        self.write = None if self.write is None or other.write is None else self.write + other.write
        self.cost = None if self.cost is None or other.cost is None else self.cost + other.cost


def ours(doc: dict[str, Any]) -> dict[tuple[str, str], Side]:
    sides = {}
    for session in doc["sessions"]:
        rows = session["timeline"]
        writes = [
            None
            if r["written_5m"] is None and r["written_1h"] is None
            else (r["written_5m"] or 0) + (r["written_1h"] or 0)
            for r in rows
        ]
        side = Side(
            1,
            sum(r["uncached"] or 0 for r in rows),
            sum(r["output"] or 0 for r in rows),
            sum(r["read"] or 0 for r in rows),
            None if any(w is None for w in writes) else sum(w or 0 for w in writes),
            session["figures"]["cost_usd"],
        )
        file = Path(rows[0]["file"]).stem if rows else session["session"]
        sides[(session["source"], file)] = side
    return sides


def theirs(report: Ccusage) -> dict[tuple[str, str], Side]:
    sides = {}
    for source, data, cost_key, name_key in (
        ("claude-code", report.claude, "totalCost", "sessionId"),
        ("codex", report.codex, "costUSD", "sessionFile"),
    ):
        for row in data.get("sessions", []):
            sides[(source, str(row[name_key]))] = Side(
                1,
                int(row["inputTokens"]),
                int(row["outputTokens"]),
                int(row["cacheReadTokens"]),
                int(row["cacheCreationTokens"]),
                float(row[cost_key]),
            )
    return sides


FIELDS = ("input", "output", "read", "write", "cost")


def _figure(value: float | None, cost: bool) -> str:
    if value is None:
        return "N/A"
    return f"${value:,.2f}" if cost else f"{value:,.0f}"


def comparison(doc: dict[str, Any], report: Ccusage) -> list[str]:
    """The totals by source, each field ours beside ccusage's, and how many sessions differ."""
    mine, their = ours(doc), theirs(report)
    lines = [
        "| source | figure | ctxconf audit | ccusage | difference | sessions that differ |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for source in ("claude-code", "codex"):
        keys = sorted(k for k in mine if k[0] == source)
        a, b = Side(), Side()
        for key in keys:
            a.add(mine[key])
            b.add(their.get(key, Side(0)))
        missing = [k for k in keys if k not in their]
        for name in FIELDS:
            cost = name == "cost"
            x, y = getattr(a, name), getattr(b, name)
            differ = sum(
                1
                for k in keys
                if k in their and not _same(getattr(mine[k], name), getattr(their[k], name), cost)
            )
            gap = "" if x is None or y is None else _figure(x - y, cost)
            label = "uncached input" if name == "input" else name
            lines.append(
                f"| {source} | {label} | {_figure(x, cost)} | {_figure(y, cost)} | {gap} | "
                f"{differ} of {len(keys)} |"
            )
        if missing:
            lines.append(f"| {source} | sessions ccusage did not report | {len(missing)} | | | |")
    return lines


def _same(x: float | None, y: float | None, cost: bool) -> bool:
    if x is None or y is None:
        return x is y
    return abs(x - y) < 0.005 if cost else x == y


# The section


def _mb(size: float) -> str:
    return f"{size / MB:,.1f} MB"


def _spread(times: Sequence[float]) -> str:
    return " / ".join(f"{t:.2f} s" for t in (min(times), statistics.median(times), max(times)))


def render(
    corpus: Corpus,
    timing: Timing,
    memory: Sequence[Memory],
    report: Ccusage | None,
    doc: dict[str, Any],
    runs: int,
    load: tuple[float, float],
) -> str:
    size = corpus.bytes
    audit_s, floor_s = statistics.median(timing.audit), statistics.median(timing.floor)
    sources = {s.source for s in corpus.sessions}
    lines = [
        "## The field audit",
        "",
        "`bench/audit_bench.py`: `ctxconf audit --home H H/.claude/projects H/.codex/sessions "
        "--json out.json` (a subprocess, start-up included) over a synthetic home "
        "(`bench/audit_corpus.py`), beside `wc -l` over the same files, interleaved in one run.",
        "",
        *machine_lines()[:-1],
        f"- Load average (1 min) {load[0]:.2f} before the run, {load[1]:.2f} after it, on "
        f"{os.cpu_count()} CPUs shared with other work: figures are of a busy machine.",
        f"- Corpus: {_mb(size)} in {len(corpus.files)} files ({', '.join(sorted(sources))}), "
        f"{corpus.requests:,} requests; the audit read every one of them, with the "
        "generator's own sums per session and class.",
        "",
        f"| | min / median / max of {runs} | MB/s (median) |",
        "|---|---:|---:|",
        f"| `ctxconf audit` | {_spread(timing.audit)} | {size / MB / audit_s:,.2f} |",
        f"| `wc -l` (the floor) | {_spread(timing.floor)} | {size / MB / floor_s:,.0f} |",
        f"| ratio (medians) | {audit_s / floor_s:,.0f}x | |",
        "",
        "Peak resident set of `ctxconf audit` (`/usr/bin/time -f %M`):",
        "",
        "| corpus | requests | peak RSS | kB per request | seconds |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in memory:
        lines.append(
            f"| {row.label}: {_mb(row.bytes)} | {row.requests:,} | {row.peak_kb / 1000:,.1f} MB | "
            f"{row.peak_kb / max(1, row.requests):,.1f} | {row.seconds:,.1f} |"
        )
    lines += ["", "### Against ccusage", ""]
    if report is None:
        lines.append("Not run (`--no-ccusage`).")
    elif report.error is not None:
        lines.append(f"ccusage could not be run here: {report.error}")
    else:
        lines += [
            f"{report.version} (`npm install {CCUSAGE}` into a temporary prefix), "
            "`HOME=H ccusage claude session --json --offline` and `ccusage codex session "
            f"--json --offline` over the same corpus ({report.seconds:.1f} s for both). Input "
            "is the uncached input (ccusage's `inputTokens`); write is the 5-minute and "
            "one-hour writes together (`cacheCreationTokens`); cost at each tool's own prices.",
            "",
            *comparison(doc, report),
        ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=float, default=100, help="corpus MB (default 100)")
    parser.add_argument("--sessions", type=int, help="sessions (default: one per 6 MB)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each (default 3)")
    parser.add_argument(
        "--memory", default="50,200", help="the two corpus sizes of the memory rows, MB"
    )
    parser.add_argument("--quick", action="store_true", help="a few MB, for a smoke run")
    parser.add_argument("--no-ccusage", action="store_true", help="leave ccusage out")
    parser.add_argument("--write-readme", action="store_true", help="update bench/README.md")
    args = parser.parse_args(argv)
    try:
        small, large = (float(x) for x in args.memory.split(","))
    except ValueError:
        parser.error("--memory takes two sizes in MB, as 50,200")
    if args.runs < 1 or args.size <= 0 or small <= 0 or large <= small:
        parser.error("--runs takes at least 1; sizes are positive, the second the larger")
    if args.quick:
        args.size, small, large, args.runs = 3.0, 2.0, 8.0, 1
    if args.write_readme and readme.refused(README):
        return 2
    size = int(args.size * MB)
    sessions = args.sessions or max(4, size // SESSION_BYTES)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="ctxconf-audit-bench-") as tmp:
        root = Path(tmp)
        corpus = generate(root / "home", size, sessions)
        out = root / "audit.json"
        try:
            timing = timed(corpus, args.runs, out)
        except RuntimeError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        doc = json.loads(out.read_text(encoding="utf-8"))
        wrong = check_read(corpus, doc)
        if wrong:
            print("error: the audit did not read what was written:", *wrong[:10], sep="\n  ")
            return 1
        memory: list[Memory] = []
        pad = 6000
        for label, megabytes, scale in (
            ("smaller", small, 1),
            ("larger", large, 1),
            (f"larger, tool results {int(large / small)}x as big", large, large / small),
        ):
            bytes_ = int(megabytes * MB)
            home = root / f"memory-{len(memory)}"
            count = max(4, bytes_ // SESSION_BYTES)
            grown = generate(home, bytes_, count, pad=int(pad * scale))
            kb, seconds = peak_rss(grown, root / f"memory-{len(memory)}.json")
            memory.append(Memory(label, grown.bytes, grown.requests, kb, seconds))
            shutil.rmtree(home)
        report = None if args.no_ccusage else run_ccusage(corpus, root / "npm")
        load = (load_before, os.getloadavg()[0])
        text = render(corpus, timing, memory, report, doc, args.runs, load)
    return 0 if publish(text, (START_MARKER, END_MARKER), args.write_readme) else 2


if __name__ == "__main__":
    raise SystemExit(main())
