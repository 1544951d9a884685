"""Benchmark of `ctxconf proxy`: what it adds to an exchange. An upstream on 127.0.0.1 streams
its answer paced as a provider streams (20 text deltas, an event every 50 ms: about a second and
a quarter); the same client asks it directly and through the proxy, in alternating phases. Three
processes, as users run them: the bench's client, the upstream (this script with `--serve`) and a
`ctxconf proxy` (recording every exchange, a 45 KB body each, with the audit's live view).

Two upstreams, each with a proxy of its own: the probe's mock (reading, playing and logging each
request as it does for a probe), and a light one that streams the mock's events alike and does
nothing else. On a machine of few cores the upstream shares the processor with the proxy, so
the mock's own work is in the proxy's figures; the light upstream shows the proxy's cost alone.

Two loads. Held: N streams kept open, each started one N-th of a stream's length after the one
before and, when it ends, followed at once by the next; only a request that arrives while the
N - 1 others are streaming is measured (the ramp up and down is not). A burst: N requests
sent in the same instant, which measures how long the last of them queues behind the others.

Figures: time to first byte and to last byte, median and p99, proxied beside direct; the added
median time to first byte in milliseconds and the added time to last byte as a share; streams
finished per second; the processor time the proxy spent per exchange, its live view apart.
Targets: added TTFB under 2 ms, added TTLB under 5 %.

    python bench/proxy_bench.py                  # held 1, 8 and 32 streams; bursts of 8 and 32
    python bench/proxy_bench.py --quick          # held 1 and 8, short streams
    python bench/proxy_bench.py --write-readme   # also update bench/README.md's section

Exit codes: 0 when every measurement ran, 2 for usage or a process that would not start.
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
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from aiohttp import web
from bench_reference import publish

from ctxconf.probe.scenario import Step
from ctxconf.probe.server import MockServer, Script
from ctxconf.shapes.answers import TEXT_DELTA_CHARS

START_MARKER = "<!-- proxy:start -->"
END_MARKER = "<!-- proxy:end -->"
BODY = json.dumps(
    {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1000,
        "system": [{"type": "text", "text": "You help. " * 3000}],
        "messages": [{"role": "user", "content": "go " * 5000}],
        "tools": [{"name": "read", "input_schema": {"type": "object"}}],  # else a side request
        "stream": True,
    }
).encode()
START_TIMEOUT = 60.0  # seconds a process is given to say where it listens


@dataclass(frozen=True)
class Pace:
    chunks: int  # the text's deltas
    gap: float  # seconds between two events

    # The deltas and the five events around them (message_start, content_block_start and
    # _stop, message_delta, message_stop): the first goes out at once, a gap before each other.
    @property
    def length(self) -> float:
        return (self.chunks + 4) * self.gap


@dataclass(frozen=True)
class Load:
    streams: int
    held: bool  # True: kept open, started in turn; False: sent in one instant
    count: int  # measured exchanges per stream in one phase
    phases: int  # phases each way, direct and proxied alternating

    @property
    def name(self) -> str:
        return "held" if self.held else "burst"


def serve_mock(pace: Pace, folder: Path) -> None:
    """The mock's process: one step that answers a text of `pace.chunks` deltas, an event every
    `pace.gap` seconds; says where it listens on stdout, then serves until it is ended."""
    text = "x" * (TEXT_DELTA_CHARS * pace.chunks)
    script = Script([Step("text", text, None)], str(folder), event_gap=pace.gap)
    with MockServer(script, folder / "mock-log.jsonl") as mock:
        print(f"listening on {mock.base_url},", flush=True)
        threading.Event().wait()


def _event(data: dict[str, object]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


def light_upstream(pace: Pace) -> web.Application:
    """The mock's stream, event for event and paced alike, with none of its work: the body read
    and let go, no cache played, nothing logged."""
    usage = {"input_tokens": 12, "cache_read_input_tokens": 9000, "output_tokens": 1}
    piece = {"type": "text_delta", "text": "x" * TEXT_DELTA_CHARS}
    deltas = [{"type": "content_block_delta", "index": 0, "delta": piece}] * pace.chunks
    events = [
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *deltas,
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "usage": {"output_tokens": 10}},
        {"type": "message_stop"},
    ]

    async def answer(request: web.Request) -> web.StreamResponse:
        await request.read()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(_event({"type": "message_start", "message": {"usage": usage}}))
        for event in events:
            await asyncio.sleep(pace.gap)
            await response.write(_event(event))
        await response.write_eof()
        return response

    app = web.Application()
    app.router.add_post("/v1/messages", answer)
    return app


def serve_light(pace: Pace) -> None:
    async def serve() -> None:
        runner = web.AppRunner(light_upstream(pace), access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        host, port = runner.addresses[0][:2]
        print(f"listening on http://{host}:{port},", flush=True)
        await asyncio.Event().wait()

    asyncio.run(serve())


UPSTREAMS = ("mock", "light")


def _started(command: list[str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A process started with its output in `log`, and the URL it says it listens on."""
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        found = re.search(r"listening on (http://\S+),", log.read_text(encoding="utf-8"))
        if found:
            return process, found.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    _end(process)
    raise RuntimeError(f"{command[1:3]} did not start: " + log.read_text(encoding="utf-8"))


def _end(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _cpu_seconds(pid: int) -> float:
    """User and system time of a process so far (Linux's /proc), 0.0 where it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(child) for child in text.split()]


@dataclass
class Sample:
    ttfb: list[float] = field(default_factory=list)
    ttlb: list[float] = field(default_factory=list)
    others_open: list[int] = field(default_factory=list)  # streams open as each one began
    exchanges: int = 0  # all that ran, the ramp's too
    wall: float = 0.0  # seconds the phases took
    cpu: float = 0.0  # the proxy's processor seconds over its phases
    view_cpu: float = 0.0  # its live view's


class Client:
    def __init__(self, session: aiohttp.ClientSession) -> None:
        self.session = session
        self.open = 0

    async def one(self, url: str) -> tuple[float, float]:
        """(time to first byte of body, time to last byte) of one streamed exchange."""
        start = time.perf_counter()
        first = None
        self.open += 1
        try:
            async with self.session.post(
                url + "/v1/messages", data=BODY, headers={"x-api-key": "bench-key-not-secret"}
            ) as response:
                async for _ in response.content.iter_any():
                    if first is None:
                        first = time.perf_counter() - start
        finally:
            self.open -= 1
        return (first or 0.0), time.perf_counter() - start

    async def burst(self, url: str, load: Load, sample: Sample) -> None:
        for _ in range(load.count):
            done = await asyncio.gather(*(self.one(url) for _ in range(load.streams)))
            sample.ttfb += [first for first, _ in done]
            sample.ttlb += [last for _, last in done]
            sample.others_open += [load.streams - 1] * len(done)
            sample.exchanges += len(done)

    async def held(self, url: str, load: Load, length: float, sample: Sample) -> None:
        """Each stream started one N-th of a stream's length after the one before, and each
        followed at once by the next until every stream has `count` measured. Only an exchange
        begun while all N - 1 others were open is measured, and none stops until all are done,
        so every measured one had them all beside it, however late the machine runs."""
        measured = [0] * load.streams

        async def stream(n: int) -> None:
            await asyncio.sleep(length * n / load.streams)
            while min(measured) < load.count:
                others = self.open  # no await between the last one's end and this one's start
                first, last = await self.one(url)
                sample.exchanges += 1
                if others == load.streams - 1 and measured[n] < load.count:
                    measured[n] += 1
                    sample.ttfb.append(first)
                    sample.ttlb.append(last)
                    sample.others_open.append(others)

        await asyncio.gather(*(stream(n) for n in range(load.streams)))


async def measure(
    client: Client, urls: dict[str, str], proxy: int, pace: Pace, load: Load
) -> dict[str, Sample]:
    """`load.phases` phases each way, direct and proxied in turn."""
    samples = {name: Sample() for name in urls}
    for _ in range(load.phases):
        for name, url in urls.items():
            sample = samples[name]
            views = _children(proxy)
            cpu, view_cpu = _cpu_seconds(proxy), sum(map(_cpu_seconds, views))
            start = time.perf_counter()
            if load.held:
                await client.held(url, load, pace.length, sample)
            else:
                await client.burst(url, load, sample)
            sample.wall += time.perf_counter() - start
            await asyncio.sleep(pace.length)  # the view catches up outside the phase it audits
            if name == "proxied":
                sample.cpu += _cpu_seconds(proxy) - cpu
                sample.view_cpu += sum(map(_cpu_seconds, views)) - view_cpu
    return samples


def _p(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _row(kind: str, load: Load, found: dict[str, Sample]) -> str:
    direct, proxied = found["direct"], found["proxied"]
    added_first = statistics.median(proxied.ttfb) - statistics.median(direct.ttfb)
    last_ratio = statistics.median(proxied.ttlb) / statistics.median(direct.ttlb)
    rate = {name: s.exchanges / s.wall for name, s in found.items()}
    cpu = (
        f"{proxied.cpu / proxied.exchanges * 1000:.2f} / "
        f"{proxied.view_cpu / proxied.exchanges * 1000:.1f} ms"
        if proxied.cpu
        else "N/A"
    )
    return (
        f"| {kind} | {load.name} | {load.streams} | "
        f"{min(direct.others_open + proxied.others_open)} | "
        f"{len(direct.ttfb)} | "
        f"{_ms(statistics.median(direct.ttfb))} / {_ms(_p(direct.ttfb, 0.99))} | "
        f"{_ms(statistics.median(proxied.ttfb))} / {_ms(_p(proxied.ttfb, 0.99))} | "
        f"{added_first * 1000:+.2f} ms | "
        f"{_ms(statistics.median(direct.ttlb))} / {_ms(_p(direct.ttlb, 0.99))} | "
        f"{_ms(statistics.median(proxied.ttlb))} / {_ms(_p(proxied.ttlb, 0.99))} | "
        f"{(last_ratio - 1) * 100:+.2f} % | {rate['direct']:.1f} / {rate['proxied']:.1f} | "
        f"{cpu} |"
    )


async def rows(pace: Pace, plan: Sequence[Load]) -> list[str]:
    found = []
    for kind in UPSTREAMS:
        with tempfile.TemporaryDirectory() as name:
            found += await _rows(kind, pace, plan, Path(name))
    return found


async def _rows(kind: str, pace: Pace, plan: Sequence[Load], folder: Path) -> list[str]:
    """The plan's rows against one upstream, and a proxy of its own in front of it."""
    found = []
    paced = [str(pace.chunks), str(pace.gap), str(folder)]
    serve = [sys.executable, __file__, "--serve", kind, *paced]
    upstream, upstream_url = _started(serve, folder / "upstream.txt")
    try:
        proxy, proxy_url = _started(
            [sys.executable, "-m", "ctxconf", "proxy", "--upstream", upstream_url,
             "--listen", "127.0.0.1:0", "--record", str(folder / "record")],
            folder / "proxy.txt",
        )  # fmt: skip
        try:
            connector = aiohttp.TCPConnector(limit=0)
            async with aiohttp.ClientSession(connector=connector) as session:
                client = Client(session)
                urls = {"direct": upstream_url, "proxied": proxy_url}
                warm = Load(1, False, 2, 1)
                await measure(client, urls, proxy.pid, pace, warm)
                for load in plan:
                    samples = await measure(client, urls, proxy.pid, pace, load)
                    found.append(_row(kind, load, samples))
        finally:
            _end(proxy)
    finally:
        _end(upstream)
    return found


def section(pace: Pace, plan: Sequence[Load]) -> str:
    before = os.getloadavg()[0]
    found = asyncio.run(rows(pace, plan))
    after = os.getloadavg()[0]
    head = [
        "## The proxy",
        "",
        "`python bench/proxy_bench.py`: an upstream on 127.0.0.1 streams an Anthropic answer",
        f"paced as a provider's ({pace.chunks} text deltas, an event every",
        f"{pace.gap * 1000:.0f} ms), asked directly and through a `ctxconf proxy` (recording each",
        f"exchange, a {len(BODY) // 1000} KB body each, with the audit's live view) in",
        "alternating phases; client, upstream and proxy are three processes. The upstream is the",
        "probe's mock (`mock`: each request read, played and logged), or one that streams the",
        "mock's events alike and does nothing else (`light`). *Held*: N streams",
        "kept open, each measured request arriving while the others stream; *burst*: N sent in",
        "one instant. Time to first byte (TTFB) and to last byte (TTLB), median / p99; the added",
        "TTFB is the difference of the medians, the added TTLB their ratio less one; streams",
        "finished per second, direct / proxied; the proxy's processor time per exchange, its",
        "own / its live view's.",
        "",
        f"- Date: {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; {os.cpu_count()} "
        f"CPUs; Python {platform.python_version()}; aiohttp {aiohttp.__version__}",
        f"- Load average (1 min): {before:.2f} before, {after:.2f} after",
        "- Targets: added TTFB under 2 ms, added TTLB under 5 %",
        "",
        "| upstream | load | streams | others open (min) | exchanges each way | direct TTFB "
        "| proxied TTFB | added TTFB | direct TTLB | proxied TTLB | added TTLB | streams/s "
        "| proxy CPU per exchange |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    return "\n".join([*head, *found]) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short streams, for a smoke run")
    parser.add_argument("--write-readme", action="store_true", help="update bench/README.md")
    parser.add_argument("--serve", nargs=4, metavar=("KIND", "CHUNKS", "GAP", "FOLDER"),
                        help="be an upstream, mock or light (the bench starts it)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.serve:
        kind, chunks, gap, folder = args.serve
        try:
            pace = Pace(int(chunks), float(gap))
        except ValueError:
            parser.error(
                "--serve takes mock or light, a number of chunks, a gap in seconds, a folder"
            )
        if kind not in UPSTREAMS:
            parser.error(f"--serve: the upstream is one of {', '.join(UPSTREAMS)}, not {kind!r}")
        if kind == "mock":
            serve_mock(pace, Path(folder))
        else:
            serve_light(pace)
        return 0
    if args.quick:
        pace = Pace(5, 0.01)
        plan = [Load(1, True, 5, 1), Load(8, True, 2, 1)]
    else:
        pace = Pace(20, 0.05)
        plan = [
            Load(1, True, 10, 4),
            Load(8, True, 3, 3),
            Load(32, True, 3, 3),
            Load(8, False, 2, 3),
            Load(32, False, 1, 3),
        ]
    try:
        text = section(pace, plan)
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0 if publish(text, (START_MARKER, END_MARKER), args.write_readme) else 2


if __name__ == "__main__":
    raise SystemExit(main())
