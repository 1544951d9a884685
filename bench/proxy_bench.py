"""Benchmark of `ctxconf proxy`: what it adds to an exchange. A paced upstream on 127.0.0.1
streams Anthropic's events as a provider does (20 chunks over about a second, usage in the
first and the last); the same client asks it directly and through the proxy, in alternating
rounds, with 1, 8 and 32 streams at once. The proxy runs as users run it, a `ctxconf proxy`
process of its own (recording every exchange, a 45 KB body each); the upstream and the client
share this process.

Figures: time to first byte and to last byte, median and p99, proxied beside direct; the
added median time to first byte in milliseconds and the added time to last byte as a share;
the streams finished per second. Targets: added TTFB under 2 ms, added TTLB under 5 %.

    python bench/proxy_bench.py                  # 1, 8 and 32 streams
    python bench/proxy_bench.py --quick          # 1 and 8, short streams
    python bench/proxy_bench.py --write-readme   # also update bench/README.md's section

Exit codes: 0 when every measurement ran, 2 for usage or a proxy that would not start.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import aiohttp
from aiohttp import web
from bench_reference import publish

START_MARKER = "<!-- proxy:start -->"
END_MARKER = "<!-- proxy:end -->"
BODY = json.dumps(
    {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1000,
        "system": [{"type": "text", "text": "You help. " * 3000}],
        "messages": [{"role": "user", "content": "go " * 5000}],
        "stream": True,
    }
).encode()


@dataclass(frozen=True)
class Pace:
    chunks: int  # events after message_start
    gap: float  # seconds between two


def _event(data: dict[str, object]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


def paced_upstream(pace: Pace) -> web.Application:
    """Anthropic's stream: message_start at once, then a text delta every `gap` seconds, then
    message_delta and message_stop."""
    usage = {"input_tokens": 12, "cache_read_input_tokens": 9000, "output_tokens": 1}

    async def answer(request: web.Request) -> web.StreamResponse:
        await request.read()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(_event({"type": "message_start", "message": {"usage": usage}}))
        for n in range(pace.chunks):
            await asyncio.sleep(pace.gap)
            delta = {"type": "text_delta", "text": f"word{n} " * 4}
            await response.write(_event({"type": "content_block_delta", "delta": delta}))
        await response.write(_event({"type": "message_delta", "usage": {"output_tokens": 80}}))
        await response.write(_event({"type": "message_stop"}))
        await response.write_eof()
        return response

    app = web.Application()
    app.router.add_post("/v1/messages", answer)
    return app


async def one(session: aiohttp.ClientSession, url: str) -> tuple[float, float]:
    """(time to first byte of body, time to last byte) of one streamed exchange."""
    start = time.perf_counter()
    first = None
    async with session.post(
        url + "/v1/messages", data=BODY, headers={"x-api-key": "bench-key-not-secret"}
    ) as response:
        async for _ in response.content.iter_any():
            if first is None:
                first = time.perf_counter() - start
    return (first or 0.0), time.perf_counter() - start


@dataclass
class Sample:
    ttfb: list[float]
    ttlb: list[float]
    wall: float = 0.0  # seconds the rounds took, all streams at once


async def rounds(
    session: aiohttp.ClientSession, urls: dict[str, str], streams: int, count: int
) -> dict[str, Sample]:
    """`count` rounds of `streams` exchanges at once, direct and proxied in turn."""
    samples = {name: Sample([], []) for name in urls}
    for _ in range(count):
        for name, url in urls.items():
            start = time.perf_counter()
            done = await asyncio.gather(*(one(session, url) for _ in range(streams)))
            samples[name].wall += time.perf_counter() - start
            samples[name].ttfb += [first for first, _ in done]
            samples[name].ttlb += [last for _, last in done]
    return samples


def start_proxy(upstream: str, folder: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    log = folder / "console.txt"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "ctxconf", "proxy", "--upstream", upstream,
             "--listen", "127.0.0.1:0", "--record", str(folder / "record")],
            stdout=out,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"listening on (http://\S+),", log.read_text(encoding="utf-8"))
        if found:
            return process, found.group(1), log
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    process.wait()
    raise RuntimeError("the proxy did not start: " + log.read_text(encoding="utf-8"))


def _p(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


async def measure(pace: Pace, plan: Sequence[tuple[int, int]]) -> list[str]:
    runner = web.AppRunner(paced_upstream(pace), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    upstream = f"http://{host}:{port}"
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        process, proxied, _ = start_proxy(upstream, Path(folder))
        try:
            connector = aiohttp.TCPConnector(limit=0)
            async with aiohttp.ClientSession(connector=connector) as session:
                urls = {"direct": upstream, "proxied": proxied}
                await rounds(session, urls, 1, 2)  # warm both paths
                for streams, count in plan:
                    found = await rounds(session, urls, streams, count)
                    rows.append(_row(streams, found))
        finally:
            process.terminate()
            process.wait(timeout=60)
            await runner.cleanup()
    return rows


def _row(streams: int, found: dict[str, Sample]) -> str:
    direct, proxied = found["direct"], found["proxied"]
    added_first = statistics.median(proxied.ttfb) - statistics.median(direct.ttfb)
    last_ratio = statistics.median(proxied.ttlb) / statistics.median(direct.ttlb)
    rate = {name: len(s.ttlb) / s.wall for name, s in found.items()}
    return (
        f"| {streams} | {len(direct.ttfb)} | "
        f"{_ms(statistics.median(direct.ttfb))} / {_ms(_p(direct.ttfb, 0.99))} | "
        f"{_ms(statistics.median(proxied.ttfb))} / {_ms(_p(proxied.ttfb, 0.99))} | "
        f"{added_first * 1000:+.2f} ms | "
        f"{_ms(statistics.median(direct.ttlb))} / {_ms(_p(direct.ttlb, 0.99))} | "
        f"{_ms(statistics.median(proxied.ttlb))} / {_ms(_p(proxied.ttlb, 0.99))} | "
        f"{(last_ratio - 1) * 100:+.2f} % | {rate['direct']:.1f} / {rate['proxied']:.1f} |"
    )


def section(pace: Pace, plan: Sequence[tuple[int, int]]) -> str:
    before = os.getloadavg()[0]
    rows = asyncio.run(measure(pace, plan))
    after = os.getloadavg()[0]
    head = [
        "## The proxy",
        "",
        "`python bench/proxy_bench.py`: a paced upstream on 127.0.0.1 streams Anthropic's",
        f"events ({pace.chunks} text deltas {pace.gap * 1000:.0f} ms apart after",
        "`message_start`), asked directly and through a `ctxconf proxy` process (recording",
        f"each exchange, a {len(BODY) // 1000} KB body each) in alternating rounds, by one",
        "client in the bench's process. Time to first byte (TTFB) and to last byte (TTLB),",
        "median / p99; the added TTFB is the difference of the medians, the added TTLB their",
        "ratio less one; streams finished per second, direct / proxied.",
        "",
        f"- Date: {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; {os.cpu_count()} "
        f"CPUs; Python {platform.python_version()}; aiohttp {aiohttp.__version__}",
        f"- Load average (1 min): {before:.2f} before, {after:.2f} after",
        "- Targets: added TTFB under 2 ms, added TTLB under 5 %",
        "",
        "| streams at once | exchanges each way | direct TTFB | proxied TTFB | added TTFB "
        "| direct TTLB | proxied TTLB | added TTLB | streams/s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    return "\n".join([*head, *rows]) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short streams, for a smoke run")
    parser.add_argument("--write-readme", action="store_true", help="update bench/README.md")
    args = parser.parse_args(argv)
    if args.quick:
        pace, plan = Pace(5, 0.01), [(1, 5), (8, 2)]
    else:
        pace, plan = Pace(20, 0.05), [(1, 40), (8, 6), (32, 3)]
    try:
        text = section(pace, plan)
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0 if publish(text, (START_MARKER, END_MARKER), args.write_readme) else 2


if __name__ == "__main__":
    raise SystemExit(main())
