"""Benchmark of the cache audit's losses: how long `audit` takes over a session of N requests
under Anthropic's rules, a clean session (every request goes on from the one before, nothing to
play again) beside one that rewrites its first message on every request (every request's loss
is a counterfactual played after the session's earlier requests, so the cost grows with N
squared plays). Medians of `--repeat` runs, side by side in one process.

    python bench/loss_bench.py                  # 30, 60 and 120 requests
    python bench/loss_bench.py --quick          # 10 and 20
    python bench/loss_bench.py --write-readme   # also update bench/README.md's section

Exit codes: 0 when every measurement ran, 2 for usage.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from typing import Any

from bench_reference import publish

from ctxconf.cache import CacheRequest, audit
from ctxconf.shapes import read_request

START_MARKER = "<!-- loss:start -->"
END_MARKER = "<!-- loss:end -->"


def _block(text: str, marked: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "text", "text": text}
    if marked:
        out["cache_control"] = {"type": "ephemeral"}
    return out


def _body(n: int, rewrite: bool) -> dict[str, Any]:
    """Request n: a 2,000-token system prompt, n answered questions and a new one, its last
    block marked; with `rewrite`, the first question carries the request's number."""
    messages: list[dict[str, Any]] = []
    for i in range(n + 1):
        said = "question " + "q " * 100 + (f" (request {n})" if rewrite and i == 0 else "")
        messages.append({"role": "user", "content": [_block(said, marked=i == n)]})
        if i < n:
            messages.append({"role": "assistant", "content": [_block("answer " + "a " * 150)]})
    system = [_block("system " * 1140, marked=True)]
    return {"model": "claude-sonnet-4-5", "system": system, "messages": messages}


def session(count: int, rewrite: bool) -> list[CacheRequest]:
    return [read_request("anthropic", _body(n, rewrite), (), 2.0 * n) for n in range(count)]


def median_seconds(requests: Sequence[CacheRequest], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        audit("anthropic", requests)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def section(sizes: Sequence[int], repeat: int) -> str:
    rows = [
        "## The cache audit's losses",
        "",
        f"`python bench/loss_bench.py` (medians of {repeat} runs, one process): `audit` over a",
        "session under Anthropic's rules, clean beside rewriting its first message on every",
        "request (each loss a counterfactual played after the earlier requests).",
        "",
        "| requests | clean | rewriting | ratio |",
        "|---:|---:|---:|---:|",
    ]
    for count in sizes:
        clean = median_seconds(session(count, False), repeat)
        broken = median_seconds(session(count, True), repeat)
        rows.append(f"| {count} | {clean:.3f} s | {broken:.3f} s | {broken / clean:.1f}x |")
    return "\n".join(rows) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sessions, for a smoke run")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (default 5)")
    parser.add_argument("--write-readme", action="store_true", help="update bench/README.md")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat takes a number of at least 1")
    sizes = (10, 20) if args.quick else (30, 60, 120)
    text = section(sizes, 1 if args.quick else args.repeat)
    return 0 if publish(text, (START_MARKER, END_MARKER), args.write_readme) else 2


if __name__ == "__main__":
    raise SystemExit(main())
