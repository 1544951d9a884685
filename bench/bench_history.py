"""The history area's reference (`HistorySession`) on long sessions, beside plain baselines.

Seeded sessions of 1x, 4x and 16x turns (a person's message, the model's calls, their results
of realistic sizes, an answer) are driven turn by turn, each turn building its request, beside a
minimal harness over the same messages (a list of dicts, one `json.dumps` per message for its
transcript and one of the whole list for its request). On the transcript each session wrote:
a reload against `json.loads` of every line, one request against `json.dumps` of the same
messages, and at the largest size a trim, a branch back and forth, a fork and a compaction.
Peak memory of a reload is taken in a separate round under `tracemalloc`.

    python bench/bench_history.py                  # full sizes (a few minutes)
    python bench/bench_history.py --quick          # small sizes, a smoke run of a few seconds
    python bench/bench_history.py --write-readme   # also update bench/README.md's section

Exit codes: 0 when every benchmark ran (whether its targets were met or not), 2 for usage errors.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import random
import resource
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_reference import _WORDS, SEED, Thunk, _code_line, heap_peak, machine_lines, time_rounds
from bench_reference import write_readme as write_section
from bench_scale import _load, _mb, _spread

import ctxconf.reference.history as history_package
from ctxconf.reference import HistorySession
from ctxconf.reference.history import Call, HistoryConfig

START_MARKER = "<!-- history:start -->"
END_MARKER = "<!-- history:end -->"
SCALES = (1, 4, 16)

# Targets: the reference may cost this many times its baseline (medians); its per-turn median
# may grow this many times for 4x the turns (linear: 4x, quadratic: 16x); a reload may hold at
# its peak this many times the transcript's bytes.
TIME_TARGET = 10.0
GROWTH_TARGET = 6.0
MEMORY_TARGET = 6.0

Message = dict[str, Any]


@dataclass(frozen=True)
class Sizes:
    turns: int  # at 1x
    rounds: int


FULL = Sizes(turns=250, rounds=5)
QUICK = Sizes(turns=8, rounds=2)


# -- sessions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolUse:
    call: str
    tool: str
    args: dict[str, str]
    result: str
    uneventful: bool


@dataclass(frozen=True)
class Turn:
    index: int
    user: str
    calls: tuple[ToolUse, ...]
    answer: str


_TOOLS = ("read", "bash", "grep")


def _prose(rng: random.Random, low: int, high: int) -> str:
    return _code_line(rng, rng.randrange(low, high)).strip()


def _output(rng: random.Random) -> str:
    """A tool's output: code-like lines, 1.5 kB in the median turn's result, a few up to 16 kB."""
    size = int(min(16_000, max(40, rng.lognormvariate(7.0, 1.0))))
    lines: list[str] = []
    length = 0
    while length < size:
        lines.append(_code_line(rng, rng.randrange(10, 90)))
        length += len(lines[-1]) + 1
    return "\n".join(lines)


def _args(rng: random.Random, tool: str, index: int) -> dict[str, str]:
    path = f"src/{rng.choice(_WORDS)}_{index % 97}.py"
    if tool == "read":
        return {"path": path}
    if tool == "grep":
        return {"pattern": rng.choice(_WORDS), "path": "src"}
    return {"command": f"pytest -q {path}"}


def session_turns(turns: int) -> list[Turn]:
    """`turns` seeded turns: 0 to 3 calls each (1.5 on average), a third of the results
    uneventful (a compaction may elide them)."""
    rng = random.Random(SEED + 10)
    out: list[Turn] = []
    for index in range(turns):
        calls = tuple(
            ToolUse(
                call=f"c{index}.{k}",
                tool=(tool := rng.choice(_TOOLS)),
                args=_args(rng, tool, index),
                result=_output(rng),
                uneventful=rng.random() < 1 / 3,
            )
            for k in range(rng.choice((0, 1, 1, 2, 2, 3)))
        )
        out.append(Turn(index, _prose(rng, 20, 300), calls, _prose(rng, 20, 400)))
    return out


def drive_turn(session: HistorySession, turn: Turn) -> str:
    """One turn of the reference, ending with the request its tip makes."""
    i = turn.index
    session.user(f"u{i}", turn.user)
    if turn.calls:
        session.assistant(f"a{i}", calls=[Call(c.call, c.tool, c.args) for c in turn.calls])
        for k, c in enumerate(turn.calls):
            session.result(f"r{i}.{k}", c.call, c.result, uneventful=c.uneventful)
    session.assistant(f"f{i}", turn.answer)
    session.end_turn()
    return session.request()


def turn_messages(turn: Turn) -> list[Message]:
    """The same turn as a chat API's messages."""
    out: list[Message] = [{"role": "user", "content": turn.user}]
    if turn.calls:
        calls = [{"id": c.call, "name": c.tool, "arguments": c.args} for c in turn.calls]
        out.append({"role": "assistant", "content": "", "tool_calls": calls})
        out += [{"role": "tool", "tool_call_id": c.call, "content": c.result} for c in turn.calls]
    out.append({"role": "assistant", "content": turn.answer})
    return out


class PlainHarness:
    """The baseline: messages kept as dicts, each written as a JSON line, the whole list
    serialised as each turn's request."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.lines: list[str] = []

    def turn(self, turn: Turn) -> str:
        new = turn_messages(turn)
        self.messages += new
        self.lines += [json.dumps(message) + "\n" for message in new]
        return json.dumps(self.messages)


def new_session(config: HistoryConfig, window: int = 1 << 40) -> HistorySession:
    return HistorySession(config, window=window, vision=True)


def loaded(
    config: HistoryConfig, transcript: Sequence[str], window: int = 1 << 40
) -> HistorySession:
    """A session cold-started from `transcript` (a copy: the steps timed append to it)."""
    session = new_session(config, window)
    session.store.records = list(transcript)
    session.reload()
    return session


# -- measuring --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Live:
    """One whole session driven turn by turn, the reference and the baseline in step."""

    scale: int
    turns: int
    ref: list[float]  # seconds per turn
    base: list[float]
    transcript: list[str]  # the reference's records
    messages: list[Message]  # the baseline's
    request_chars: int
    request_tokens: int


@dataclass(frozen=True)
class Pair:
    """A call timed over rounds beside its baseline, with the input they share."""

    name: str
    scale: int
    input_desc: str
    ref: list[float]
    base: list[float]
    peak: int | None = None
    base_peak: int | None = None
    input_bytes: int = 0

    @property
    def ratio(self) -> float:
        return statistics.median(self.ref) / statistics.median(self.base)


def live_session(config: HistoryConfig, scale: int, turns: list[Turn]) -> Live:
    """Each turn of the reference, then the same turn of the baseline: load from elsewhere on
    the machine falls on both alike."""
    session = new_session(config)
    plain = PlainHarness()
    ref: list[float] = []
    base: list[float] = []
    request = ""
    for turn in turns:
        started = time.perf_counter()
        request = drive_turn(session, turn)
        middle = time.perf_counter()
        plain.turn(turn)
        base.append(time.perf_counter() - middle)
        ref.append(middle - started)
    return Live(
        scale=scale,
        turns=len(turns),
        ref=ref,
        base=base,
        transcript=list(session.store.records),
        messages=plain.messages,
        request_chars=len(request),
        request_tokens=session.request_view().tokens,
    )


def _bytes(lines: Sequence[str]) -> int:
    return sum(len(line.encode("utf-8")) for line in lines)


def _desc(live: Live) -> str:
    size = _mb(_bytes(live.transcript))
    return f"{live.turns:,} turns, {len(live.transcript):,} records, {size}"


def bench_reload(config: HistoryConfig, live: Live, rounds: int) -> Pair:
    transcript = live.transcript
    check = loaded(config, transcript)
    assert check.request_view().tokens == live.request_tokens, "reload: another request"

    def ref() -> Thunk:
        session = new_session(config)
        session.store.records = list(transcript)
        return session.reload

    def base() -> Thunk:
        return lambda: [json.loads(line) for line in transcript]

    ref_times, base_times = _pair(ref, base, rounds)
    return Pair(
        "reload",
        live.scale,
        _desc(live),
        ref_times,
        base_times,
        peak=heap_peak(ref),
        base_peak=heap_peak(base),
        input_bytes=_bytes(transcript),
    )


def bench_request(config: HistoryConfig, live: Live, rounds: int) -> Pair:
    session = loaded(config, live.transcript)
    messages = live.messages
    desc = f"{len(messages):,} messages, {_mb(live.request_chars)} of request"
    ref_times, base_times = _pair(
        lambda: session.request, lambda: lambda: json.dumps(messages), rounds
    )
    return Pair("request", live.scale, desc, ref_times, base_times)


def _pair(
    ref: Callable[[], Thunk], base: Callable[[], Thunk], rounds: int
) -> tuple[list[float], list[float]]:
    base_times, ref_times = time_rounds([base, ref], rounds)
    return ref_times, base_times


def bench_steps(config: HistoryConfig, live: Live, rounds: int) -> list[Pair]:
    """A trim to half the tokens, a branch back and forth, a fork and a compaction, each on a
    session freshly loaded from the transcript (outside the timing)."""
    transcript = live.transcript
    messages = live.messages
    tip = f"f{live.turns - 1}"
    middle = f"f{live.turns // 2}"
    half = live.request_tokens // 2

    def dumps() -> Thunk:
        return lambda: json.dumps(messages)

    def trim() -> Thunk:
        session = loaded(config, transcript)
        return lambda: session.trim("t1", half)

    def branch() -> Thunk:
        session = loaded(config, transcript)
        return lambda: (session.branch(middle), session.branch(tip))

    def fork() -> Thunk:
        session = loaded(config, transcript)
        return lambda: session.fork("side")

    def compact() -> Thunk:
        # A window the request fills: the ladder aims at half of it.
        session = loaded(config, transcript, window=live.request_tokens)
        return lambda: session.compact("k1", "Earlier work, in a line.")

    _check_steps(config, live, trim, branch, fork, compact)
    desc = _desc(live)
    out: list[Pair] = []
    steps = [
        ("trim to half the tokens", trim),
        ("branch back and forth", branch),
        ("fork", fork),
        ("compaction", compact),
    ]
    for name, step in steps:
        ref_times, base_times = _pair(step, dumps, rounds)
        out.append(Pair(name, live.scale, desc, ref_times, base_times))
    return out


def _check_steps(config: HistoryConfig, live: Live, *steps: Callable[[], Thunk]) -> None:
    """Each step does what it is timed for, rather than answering that it cannot."""
    trim, branch, fork, compact = (step()() for step in steps)
    texts = config.texts
    assert isinstance(trim, str) and trim != texts.render("trim_nothing"), trim
    assert branch == ("", ""), branch
    forked = texts.render("forked", source=config.main, entry=f"f{live.turns - 1}", fork="side")
    assert fork == forked, fork
    assert isinstance(compact, str) and compact != texts.render("compact_nothing"), compact


# -- reporting --------------------------------------------------------------------------------


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def _median_ms(times: Sequence[float]) -> str:
    return f"{statistics.median(times) * 1000:,.2f} ms"


def live_table(lives: Sequence[Live]) -> list[str]:
    out = [
        "| size | session | request at the end | reference per turn min / median / max | "
        "baseline per turn min / median / max | ratio (medians) | reference, whole session "
        "| baseline, whole session |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for live in lives:
        ratio = statistics.median(live.ref) / statistics.median(live.base)
        out.append(
            f"| {live.scale}x | {_desc(live)} | {live.request_tokens:,} tokens | "
            f"{_spread(live.ref)} | {_spread(live.base)} | {ratio:.2f}x | "
            f"{sum(live.ref):,.2f} s | {sum(live.base):,.2f} s |"
        )
    return out


def growth_table(lives: Sequence[Live]) -> list[str]:
    out = [
        "| growth | turns | reference per-turn median | baseline per-turn median | target | "
        "verdict |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for small, large in itertools.pairwise(lives):
        ref = statistics.median(large.ref) / statistics.median(small.ref)
        base = statistics.median(large.base) / statistics.median(small.base)
        out.append(
            f"| {large.scale}x / {small.scale}x | {small.turns:,} → {large.turns:,} | "
            f"{ref:.2f}x | {base:.2f}x | ≤ {GROWTH_TARGET:g}x | "
            f"{_verdict(ref <= GROWTH_TARGET)} |"
        )
    return out


def pair_table(pairs: Sequence[Pair], call: str, baseline: str) -> list[str]:
    out = [
        f"| benchmark | size | input | {call} min / median / max | {baseline} "
        "min / median / max | ratio (medians) | target | verdict |",
        "|---|---:|---|---:|---:|---:|---:|---|",
    ]
    for p in pairs:
        out.append(
            f"| {p.name} | {p.scale}x | {p.input_desc} | {_spread(p.ref)} | {_spread(p.base)} | "
            f"{p.ratio:.2f}x | ≤ {TIME_TARGET:g}x | {_verdict(p.ratio <= TIME_TARGET)} |"
        )
    return out


def memory_table(reloads: Sequence[Pair]) -> list[str]:
    out = [
        "| benchmark | size | transcript | reload peak (heap) | peak / transcript | target | "
        "verdict | `json.loads` of every line, peak |",
        "|---|---:|---:|---:|---:|---:|---|---:|",
    ]
    for p in reloads:
        assert p.peak is not None and p.base_peak is not None
        ratio = p.peak / p.input_bytes
        out.append(
            f"| {p.name} | {p.scale}x | {_mb(p.input_bytes)} | {_mb(p.peak)} | {ratio:.2f}x | "
            f"< {MEMORY_TARGET:g}x | {_verdict(ratio < MEMORY_TARGET)} | {_mb(p.base_peak)} |"
        )
    return out


def history_version() -> str:
    """A digest of the history area's sources measured (the reference line hashes only the
    package's top level)."""
    sources = Path(history_package.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(sources.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return f"- History sources (`reference/history/*.py`): sha256 {digest.hexdigest()[:12]}"


@dataclass(frozen=True)
class Results:
    lives: list[Live]
    reloads: list[Pair]
    requests: list[Pair]
    steps: list[Pair]


def render(results: Results, sizes: Sizes, quick: bool, load_before: str) -> str:
    process_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    mode = "quick (smoke sizes)" if quick else "full"
    largest = results.lives[-1]
    parts = [
        "## History",
        "",
        "`bench/bench_history.py`: the history area's reference (`HistorySession`) on seeded "
        f"sessions of {', '.join(f'{live.turns:,}' for live in results.lives)} turns, each "
        "figure beside a baseline over the same data in the same run.",
        "",
        *machine_lines(),
        history_version(),
        f"- Mode: {mode}; {sizes.rounds} timed rounds per figure but the live sessions (one "
        "session each, a figure per turn), reference and baseline alternating; the bench "
        f"process reached {_mb(process_rss)} max RSS in all; load average (1, 5, 15 min) "
        f"{load_before} before the run, {_load()} after it, on {os.cpu_count()} CPUs.",
        "",
        "### A live session, turn by turn",
        "",
        "Each turn: the person's message, the model's calls (0 to 3), their results, its "
        "answer, the end of the turn and the request of the tip. Baseline: the same messages "
        "appended to a list of dicts, each written as a JSON line, the whole list serialised "
        "with `json.dumps` as the turn's request.",
        "",
        *live_table(results.lives),
        "",
        "Growth of the per-turn median with the session (a turn that builds its whole request "
        "grows at least as the request does: 4x for 4x the turns; quadratic would be 16x):",
        "",
        *growth_table(results.lives),
        "",
        "### Reload and one request",
        "",
        *pair_table(results.reloads, "`reload()`", "`json.loads` of every line"),
        "",
        *pair_table(results.requests, "`request()`", "`json.dumps` of the messages"),
        "",
        f"### Steps between turns, at {largest.scale}x",
        "",
        "Each on a session freshly loaded from the transcript, outside the timing; beside "
        "`json.dumps` of the same messages (one request's worth of work).",
        "",
        *pair_table(results.steps, "reference", "`json.dumps` of the messages"),
        "",
        "### Memory of a reload",
        "",
        *memory_table(results.reloads),
        "",
        "### Method",
        "",
        "- Sessions: seeded (seed "
        f"{SEED + 10}); each turn has 0 to 3 calls (1.5 on average) of `read`, `bash` or "
        "`grep`, each result code-like lines of log-normal size (median about 1.1 kB, at most "
        "16 kB), a third of them flagged uneventful; the person's message and the answer are "
        "20 to 400 characters. The session's window is large enough never to overflow.",
        "- Live sessions: one session per size, each turn timed (`time.perf_counter`) for the "
        "reference and then for the baseline, the garbage collector left on and never run "
        "by hand, as in a harness; the per-turn figures are min / median / max over the "
        "session's turns.",
        "- Reload: a new `HistorySession` is given a copy of the transcript's records before "
        "the timing; the timing is `reload()` (every record parsed, checked and applied). "
        "Request: `request()` on the loaded session. Every other figure: medians of the timed "
        "rounds, with a `gc.collect()` before each, reference and baseline taking turns.",
        "- Steps: trim to half the request's tokens; branch to the middle turn's answer and "
        "back to the tip (two steps, two writes); fork the current conversation (every "
        "entry of the path copied under a new id); a compaction with a window the request "
        "fills (target half of it) and a summary at hand. Each is checked to have done its "
        "work, not answered that it cannot.",
        "- Memory: `tracemalloc` peak of a reload in a separate, untimed round: what it "
        "allocates beyond what existed before it (the transcript's records among that), "
        "against the transcript's UTF-8 bytes.",
        "- Targets: reload ≤ 10x `json.loads`; a request ≤ 10x `json.dumps`; the per-turn "
        "median ≤ 6x for 4x the turns; reload memory < 6x the transcript's bytes. The "
        "steps between turns share the request's ≤ 10x: each is a few passes over the path.",
    ]
    return "\n".join(parts) + "\n"


def run(sizes: Sizes) -> Results:
    config = HistoryConfig.load()
    lives: list[Live] = []
    reloads: list[Pair] = []
    requests: list[Pair] = []
    for scale in SCALES:
        live = live_session(config, scale, session_turns(sizes.turns * scale))
        lives.append(live)
        reloads.append(bench_reload(config, live, sizes.rounds))
        requests.append(bench_request(config, live, sizes.rounds))
    steps = bench_steps(config, lives[-1], sizes.rounds)
    return Results(lives, reloads, requests, steps)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small sessions, for a smoke run")
    parser.add_argument(
        "--write-readme",
        action="store_true",
        help="update the History section of bench/README.md with this run",
    )
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    load_before = _load()
    section = render(run(sizes), sizes, args.quick, load_before)
    print(section, end="")
    if args.write_readme:
        write_section(section, markers=(START_MARKER, END_MARKER))
        print("\nwrote bench/README.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
