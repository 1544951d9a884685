"""The memory of a long `ctxconf fuzz --max-time` run against the reference, over time.

A child process runs `ctxconf fuzz --impl reference --max-time SECONDS` (in process, as the
command does) with Hypothesis runs of `--batch` sessions each; this process reads the child's
resident set (`VmRSS` in /proc) every `--every` seconds and reports its peak (`VmHWM`), the
sessions run and the growth per thousand sessions after the first minute, when the imports and
caches have settled. `--batch 1000000000` runs everything in one Hypothesis run, as `fuzz` did
before it ran in batches.

    python bench/fuzz_memory.py --max-time 600                     # batches of the default size
    python bench/fuzz_memory.py --max-time 120 --batch 1000000000  # one run, for comparison

Exit codes: 0 when the run finished, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

_SETTLE = 60.0  # seconds before the growth is measured
_SESSIONS = re.compile(r"no disagreement in (\d+) sessions")


def child(batch: int, max_time: float, seed: int) -> int:
    """Run the fuzz command in this process with Hypothesis runs of `batch` sessions."""
    from ctxconf.fuzzing import command, fuzz

    fuzz.BATCH = batch
    request = command.FuzzRequest(impl="reference", seed=seed, max_time=max_time)
    out = io.StringIO()
    code = command.execute(request, stdout=out, stderr=sys.stderr)
    print(out.getvalue(), end="", flush=True)
    return code


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of `pid`, in kB."""
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])
    return fields


def measure(batch: int, max_time: float, seed: int, every: float) -> str:
    command = [
        sys.executable,
        __file__,
        "--child",
        "--batch",
        str(batch),
        "--max-time",
        str(max_time),
        "--seed",
        str(seed),
    ]
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    samples: list[tuple[float, int]] = []
    peak = 0
    while process.poll() is None:
        try:
            status = _status(process.pid)
        except (FileNotFoundError, ProcessLookupError):
            break
        samples.append((time.monotonic() - started, status.get("VmRSS", 0)))
        peak = max(peak, status.get("VmHWM", 0))
        time.sleep(every)
    output = process.communicate()[0]
    found = _SESSIONS.search(output)
    sessions = int(found.group(1)) if found else 0
    elapsed = time.monotonic() - started
    settled = [(t, rss) for t, rss in samples if t >= _SETTLE]
    lines = [
        f"batch {batch}: {sessions:,} sessions in {elapsed:.0f} s; "
        f"peak resident set {peak / 1024:.1f} MB"
    ]
    if len(settled) >= 2 and sessions:
        (t0, r0), (t1, r1) = settled[0], settled[-1]
        per_second = sessions / elapsed
        growth = (r1 - r0) / ((t1 - t0) * per_second) * 1000  # kB per 1,000 sessions
        lines.append(
            f"  after {_SETTLE:.0f} s: {r0 / 1024:.1f} MB -> {r1 / 1024:.1f} MB at "
            f"{t1:.0f} s, {growth / 1024:.2f} MB per 1,000 sessions"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--max-time", type=float, default=600.0, help="seconds of fuzzing")
    parser.add_argument("--batch", type=int, default=None, help="sessions per Hypothesis run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every", type=float, default=1.0, help="seconds between samples")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    from ctxconf.fuzzing.fuzz import BATCH

    batch = BATCH if args.batch is None else args.batch
    if batch < 1 or args.max_time <= 0:
        parser.error("--batch and --max-time are above 0")
    if args.child:
        return child(batch, args.max_time, args.seed)
    print(measure(batch, args.max_time, args.seed, args.every), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
