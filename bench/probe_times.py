"""Where a probe matrix's time went, read from its results files: per harness, how many probes
and harness processes ran, the seconds its own processes took (start, think, exit: time the
probe cannot shorten) against the seconds the probes took, and what that leaves for `--jobs N`.

    python bench/probe_times.py ~/harnesses/reports/*-*.json --jobs 2

A results file is what `ctxconf probe --json` writes (matrix files are skipped)."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any


@dataclass
class HarnessTime:
    probes: int = 0
    not_played: int = 0
    probe_seconds: float = 0.0
    process_seconds: list[float] = field(default_factory=list)
    timed_out: int = 0


def _probe_seconds(data: dict[str, Any]) -> float:
    started = datetime.fromisoformat(data["started"])
    return (datetime.fromisoformat(data["finished"]) - started).total_seconds()


def gather(paths: Sequence[Path]) -> dict[str, HarnessTime]:
    times: dict[str, HarnessTime] = {}
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ValueError(f"{path}: {error}") from None
        if data.get("format") != "ctxconf-probe-results":
            continue  # a matrix or another file beside the results
        held = times.setdefault(data["harness"]["name"], HarnessTime())
        held.probes += 1
        held.not_played += bool(data.get("not_played"))
        held.probe_seconds += _probe_seconds(data)
        for process in data["processes"]:
            held.process_seconds.append(float(process["seconds"]))
            held.timed_out += bool(process["timed_out"])
    return times


def table(times: dict[str, HarnessTime], jobs: int) -> str:
    lines = [
        "| harness | probes | not played | processes | timed out | median s a process"
        " | harness s | probe s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    order = sorted(times.items(), key=lambda item: -item[1].probe_seconds)
    for name, t in order:
        median = statistics.median(t.process_seconds) if t.process_seconds else 0.0
        lines.append(
            f"| {name} | {t.probes} | {t.not_played} | {len(t.process_seconds)} | {t.timed_out}"
            f" | {median:.1f} | {sum(t.process_seconds):.0f} | {t.probe_seconds:.0f} |"
        )
    harness = sum(sum(t.process_seconds) for t in times.values())
    probes = sum(t.probe_seconds for t in times.values())
    lines.append(
        f"| all | {sum(t.probes for t in times.values())} |"
        f" {sum(t.not_played for t in times.values())} |"
        f" {sum(len(t.process_seconds) for t in times.values())} |"
        f" {sum(t.timed_out for t in times.values())} | | {harness:.0f} | {probes:.0f} |"
    )
    lines.append("")
    lines.append(
        f"With --jobs {jobs}: the harnesses' own processes alone need at least"
        f" {harness / jobs / 60:.1f} min; the probes took {probes / jobs / 60:.1f} min of"
        " wall time if the jobs never waited for one another."
    )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    try:
        times = gather(args.results)
    except (OSError, ValueError, KeyError) as error:
        print(f"probe_times: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(table(times, max(1, args.jobs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
