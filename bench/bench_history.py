"""The history area's reference (`HistorySession`) on long sessions, beside plain baselines.

Seeded sessions of 1x, 4x and 16x turns (a person's message, the model's calls, their results
of realistic sizes, an answer) are driven turn by turn, each turn building its request, beside a
minimal harness over the same messages (a list of dicts, one `json.dumps` per message for its
transcript and one of the whole list for its request); then again with a trim whenever the
request passes a budget. On the transcript each session wrote: a reload against `json.loads` of
every line, the first and the next request against `json.dumps` of the same messages, and at
the largest size a trim, a branch back and forth, a fork and a compaction. Peak memory of a
reload is taken in a separate round under `tracemalloc`.

    python bench/bench_history.py                  # full sizes (several minutes)
    python bench/bench_history.py --quick          # small sizes, a smoke run of a few seconds
    python bench/bench_history.py --against REV    # also REV's reference, turn by turn
    python bench/bench_history.py --write-readme   # also update bench/README.md's section

Exit codes: 0 when every benchmark ran (whether its targets were met or not), 2 for usage errors.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import io
import itertools
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import readme
from bench_reference import (
    _WORDS,
    README,
    SEED,
    Thunk,
    _code_line,
    heap_peak,
    machine_lines,
    publish,
    time_rounds,
)
from bench_scale import _load, _mb, _spread

import ctxconf.reference.history as history_package
from ctxconf.reference import HistorySession
from ctxconf.reference.history import HistoryConfig

ROOT = Path(__file__).resolve().parent.parent
START_MARKER = "<!-- history:start -->"
END_MARKER = "<!-- history:end -->"
SCALES = (1, 4, 16)
WINDOW = 1 << 40  # never overflowed

# Targets: the reference may cost this many times its baseline (medians); its per-turn median
# may grow this many times for 4x the turns (linear: 4x, quadratic: 16x); a reload may hold at
# its peak this many times the transcript's bytes.
TIME_TARGET = 10.0
GROWTH_TARGET = 6.0
# Under a budget the request does not grow: the reference's per-turn median may grow this many
# times as much as the baseline's, whose work per turn is the same at any length.
BUDGET_GROWTH_TARGET = GROWTH_TARGET / 4
MEMORY_TARGET = 6.0

Message = dict[str, Any]


@dataclass(frozen=True)
class Budget:
    """A harness that trims its own request: past `high` tokens, down to `low`."""

    high: int
    low: int


@dataclass(frozen=True)
class Sizes:
    turns: int  # at 1x
    rounds: int
    budget: Budget


FULL = Sizes(turns=250, rounds=5, budget=Budget(high=40_000, low=20_000))
QUICK = Sizes(turns=8, rounds=2, budget=Budget(high=4_000, low=2_000))


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
    """A tool's output: code-like lines, about 1.1 kB in the median, at most 16 kB."""
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


class ReferenceDriver:
    """A harness on a `HistorySession` (of `package`, this checkout's by default): one turn's
    steps, then the request its tip makes; with a budget, trimmed first when it passes it."""

    def __init__(self, package: ModuleType = history_package, budget: Budget | None = None) -> None:
        self.config = package.HistoryConfig.load()
        self.session = package.HistorySession(self.config, window=WINDOW, vision=True)
        self.call = package.Call
        self.budget = budget

    def turn(self, turn: Turn) -> str:
        session, i = self.session, turn.index
        session.user(f"u{i}", turn.user)
        if turn.calls:
            calls = [self.call(c.call, c.tool, c.args) for c in turn.calls]
            session.assistant(f"a{i}", calls=calls)
            for k, c in enumerate(turn.calls):
                session.result(f"r{i}.{k}", c.call, c.result, uneventful=c.uneventful)
        session.assistant(f"f{i}", turn.answer)
        session.end_turn()
        if self.budget is None:
            text: str = session.request()
            return text
        view = session.request_view()
        if view.tokens > self.budget.high:
            session.trim(f"t{i}", self.budget.low)
            view = session.request_view()
        text = view.text(self.config)
        return text


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
    """The baseline: messages kept as dicts, each written as a JSON line, the list serialised as
    each turn's request; with a budget, the oldest messages dropped when it passes it (a
    message's tokens: its JSON's characters over 4)."""

    def __init__(self, budget: Budget | None = None) -> None:
        self.messages: list[Message] = []
        self.lines: list[str] = []
        self.budget = budget
        self.start = 0  # the first message sent
        self.sizes: list[int] = []
        self.tokens = 0  # of the messages sent

    def turn(self, turn: Turn) -> str:
        new = turn_messages(turn)
        lines = [json.dumps(message) + "\n" for message in new]
        self.messages += new
        self.lines += lines
        if self.budget is None:
            return json.dumps(self.messages)
        self.sizes += [len(line) // 4 for line in lines]
        self.tokens += sum(self.sizes[-len(lines) :])
        if self.tokens > self.budget.high:
            while self.tokens > self.budget.low:
                self.tokens -= self.sizes[self.start]
                self.start += 1
        return json.dumps(self.messages[self.start :])


def new_session(config: HistoryConfig, window: int = WINDOW) -> HistorySession:
    return HistorySession(config, window=window, vision=True)


def loaded(
    config: HistoryConfig, transcript: Sequence[str], window: int = WINDOW
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
    earlier: list[float] | None  # the reference at an earlier commit, when asked for
    transcript: list[str]  # the reference's records
    messages: list[Message]  # the baseline's, every one
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
    # A reload and then the request of the tip, as a harness starting again does (the
    # reference's, and the earlier reference's when asked for).
    requested_peak: int | None = None
    earlier_requested_peak: int | None = None

    @property
    def ratio(self) -> float:
        return statistics.median(self.ref) / statistics.median(self.base)


def live_session(
    scale: int, turns: list[Turn], budget: Budget | None, earlier: ModuleType | None
) -> Live:
    """Each turn of the reference, then of the earlier reference if any, then of the baseline:
    load from elsewhere on the machine falls on all alike."""
    ref = ReferenceDriver(budget=budget)
    old = ReferenceDriver(earlier, budget) if earlier is not None else None
    plain = PlainHarness(budget)
    times: tuple[list[float], list[float], list[float]] = ([], [], [])
    request = ""
    for turn in turns:
        started = time.perf_counter()
        request = ref.turn(turn)
        times[0].append(time.perf_counter() - started)
        if old is not None:
            started = time.perf_counter()
            old_request = old.turn(turn)
            times[1].append(time.perf_counter() - started)
            assert old_request == request, f"turn {turn.index}: the earlier request differs"
        started = time.perf_counter()
        plain.turn(turn)
        times[2].append(time.perf_counter() - started)
    return Live(
        scale=scale,
        turns=len(turns),
        ref=times[0],
        base=times[2],
        earlier=times[1] if old is not None else None,
        transcript=list(ref.session.store.records),
        messages=plain.messages,
        request_chars=len(request),
        request_tokens=ref.session.request_view().tokens,
    )


def earlier_history(rev: str, folder: Path) -> ModuleType:
    """The history area of the reference at commit `rev` (with that commit's spec beside it),
    imported as a package of its own."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "reference", "spec"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    name = "earlier_reference"
    found = importlib.util.spec_from_file_location(
        name,
        folder / "reference" / "__init__.py",
        submodule_search_locations=[str(folder / "reference")],
    )
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    sys.modules[name] = module
    found.loader.exec_module(module)
    return importlib.import_module(f"{name}.history")


def _bytes(lines: Sequence[str]) -> int:
    return sum(len(line.encode("utf-8")) for line in lines)


def _desc(live: Live) -> str:
    size = _mb(_bytes(live.transcript))
    return f"{live.turns:,} turns, {len(live.transcript):,} records, {size}"


def reload_and_request(package: ModuleType, transcript: Sequence[str]) -> Callable[[], Thunk]:
    """A reload of `transcript` by `package`'s session, then the request of the tip."""
    config = package.HistoryConfig.load()

    def prepare() -> Thunk:
        session = package.HistorySession(config, window=WINDOW, vision=True)
        session.store.records = list(transcript)

        def run() -> object:
            session.reload()
            return session.request()

        return run

    return prepare


def bench_reload(
    config: HistoryConfig, live: Live, rounds: int, earlier: ModuleType | None
) -> Pair:
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
        requested_peak=heap_peak(reload_and_request(history_package, transcript)),
        earlier_requested_peak=None
        if earlier is None
        else heap_peak(reload_and_request(earlier, transcript)),
    )


def bench_requests(config: HistoryConfig, live: Live, rounds: int) -> list[Pair]:
    """The first request after a reload (every message's block made), and the next one."""
    messages = live.messages
    desc = f"{len(messages):,} messages, {_mb(live.request_chars)} of request"

    def first() -> Thunk:
        return loaded(config, live.transcript).request

    def again() -> Thunk:
        session = loaded(config, live.transcript)
        session.request()
        return session.request

    def dumps() -> Thunk:
        return lambda: json.dumps(messages)

    out: list[Pair] = []
    for name, ref in (("first request", first), ("next request", again)):
        ref_times, base_times = _pair(ref, dumps, rounds)
        out.append(Pair(name, live.scale, desc, ref_times, base_times))
    return out


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


def _growth(large: Sequence[float], small: Sequence[float]) -> float:
    return statistics.median(large) / statistics.median(small)


def growth_ok(small: Live, large: Live, relative: bool) -> tuple[float, bool]:
    """The reference's per-turn growth from `small` to `large`, and whether it meets its
    target: `GROWTH_TARGET`, or under a budget `BUDGET_GROWTH_TARGET` times the baseline's."""
    ref = _growth(large.ref, small.ref)
    if relative:
        return ref, ref <= BUDGET_GROWTH_TARGET * _growth(large.base, small.base)
    return ref, ref <= GROWTH_TARGET


def growth_table(lives: Sequence[Live], relative: bool, rev: str | None) -> list[str]:
    target = f"≤ {BUDGET_GROWTH_TARGET:g}x the baseline's" if relative else f"≤ {GROWTH_TARGET:g}x"
    earlier = f" | reference at {rev}" if rev is not None else ""
    out = [
        f"| growth | turns | reference per-turn median{earlier} | baseline per-turn median | "
        "target | verdict |",
        f"|---|---:|---:|{'---:|' if rev is not None else ''}---:|---:|---|",
    ]
    for small, large in itertools.pairwise(lives):
        ref, ok = growth_ok(small, large, relative)
        then = ""
        if large.earlier is not None and small.earlier is not None:
            then = f" {_growth(large.earlier, small.earlier):.2f}x |"
        out.append(
            f"| {large.scale}x / {small.scale}x | {small.turns:,} → {large.turns:,} | "
            f"{ref:.2f}x |{then} {_growth(large.base, small.base):.2f}x | {target} | "
            f"{_verdict(ok)} |"
        )
    return out


def before_after_table(sessions: Sequence[tuple[str, Sequence[Live]]], rev: str) -> list[str]:
    out = [
        f"| session | size | reference at {rev}, per turn min / median / max | working tree, "
        "per turn min / median / max | speed-up (medians) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, lives in sessions:
        for live in lives:
            assert live.earlier is not None
            out.append(
                f"| {name} | {live.scale}x | {_spread(live.earlier)} | {_spread(live.ref)} | "
                f"{_growth(live.earlier, live.ref):.2f}x |"
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


def memory_table(reloads: Sequence[Pair], rev: str | None) -> list[str]:
    earlier = f" | the same at {rev}" if rev is not None else ""
    out = [
        "| benchmark | size | transcript | reload peak (heap) | peak / transcript | target | "
        "verdict | `json.loads` of every line, peak | reload and a request, peak / transcript"
        f"{earlier} |",
        f"|---|---:|---:|---:|---:|---:|---|---:|---:|{'---:|' if rev is not None else ''}",
    ]
    for p in reloads:
        assert p.peak is not None and p.base_peak is not None and p.requested_peak is not None
        ratio = p.peak / p.input_bytes
        then = ""
        if p.earlier_requested_peak is not None:
            then = f" {_mb(p.earlier_requested_peak)}, {_share(p.earlier_requested_peak, p)} |"
        out.append(
            f"| {p.name} | {p.scale}x | {_mb(p.input_bytes)} | {_mb(p.peak)} | {ratio:.2f}x | "
            f"< {MEMORY_TARGET:g}x | {_verdict(ratio < MEMORY_TARGET)} | {_mb(p.base_peak)} | "
            f"{_mb(p.requested_peak)}, {_share(p.requested_peak, p)} |{then}"
        )
    return out


def _share(peak: int, pair: Pair) -> str:
    return f"{peak / pair.input_bytes:.2f}x"


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
    trimmed: list[Live]
    reloads: list[Pair]
    requests: list[Pair]
    steps: list[Pair]
    rev: str | None  # the earlier commit measured beside, if any


def render(results: Results, sizes: Sizes, quick: bool, load_before: str) -> str:
    process_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    mode = "quick (smoke sizes)" if quick else "full"
    largest = results.lives[-1]
    budget = sizes.budget
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
        *growth_table(results.lives, False, results.rev),
        "",
        "### A live session held under a budget",
        "",
        f"The same turns; when a turn's request passes {budget.high:,} tokens, a trim to "
        f"{budget.low:,} before it is sent (the baseline drops its oldest messages the same "
        "way). The request stays under the budget, so a turn should cost the same at any "
        "length of the session.",
        "",
        *live_table(results.trimmed),
        "",
        *growth_table(results.trimmed, True, results.rev),
        "",
    ]
    if results.rev is not None:
        sessions = [("live", results.lives), ("under a budget", results.trimmed)]
        parts += [
            f"### Before and after: the reference at {results.rev}",
            "",
            f"The same sessions driven in the same run by the reference of commit {results.rev} "
            "(`--against`), turn by turn beside this one; every turn's request of the two is "
            "checked to be the same text.",
            "",
            *before_after_table(sessions, results.rev),
            "",
        ]
    parts += [
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
        *memory_table(results.reloads, results.rev),
        "",
        "### Why a target is missed",
        "",
        *notes(results),
        "",
        "### Method",
        "",
        *METHOD,
    ]
    return "\n".join(parts) + "\n"


# Why a row can miss its target, from profiling the reference (cProfile): printed under the
# tables only for the rows a run misses.
MISS_NOTES = {
    "reload": "A reload parses every record, checks it and makes its entry, then makes the "
    "entry again to apply it; a miss means that work outweighs `json.loads` ten times over.",
    "first request": "The first request after a reload makes every message's block (its "
    "header and text rendered from the templates, its tokens counted).",
    "next request": "A later request makes only the blocks of messages new since the last "
    "one; a miss means the blocks are made again.",
    "trim to half the tokens": "A trim builds the request once to find where to cut.",
    "branch back and forth": "A branch walks the path to its target to check it has no open call.",
    "fork": "A fork writes a record per entry of the path, each entry renamed and encoded "
    "as JSON with sorted keys.",
    "compaction": "A compaction builds the request of its path about seven times (the live "
    "request, then each rung's plan before and after it), each a pass over the whole path "
    "(`view_of`); on a session just loaded, the first of them also makes every message's "
    "block, where the baseline serialises the messages once.",
    "growth": "The per-turn cost grows faster than the request: a step does work over the "
    "whole path or tree rather than over what it changes.",
}


def notes(results: Results) -> list[str]:
    """One line per row that misses its target, with what its time goes to."""
    missed: list[str] = []
    for p in [*results.reloads, *results.requests, *results.steps]:
        if p.ratio > TIME_TARGET:
            missed.append(f"- {p.name} at {p.scale}x, {p.ratio:.2f}x: {MISS_NOTES[p.name]}")
    for lives, name in ((results.lives, "live"), (results.trimmed, "under a budget")):
        for small, large in itertools.pairwise(lives):
            growth, ok = growth_ok(small, large, lives is results.trimmed)
            if not ok:
                missed.append(
                    f"- growth {name}, {large.scale}x / {small.scale}x, {growth:.2f}x: "
                    f"{MISS_NOTES['growth']}"
                )
    for p in results.reloads:
        assert p.peak is not None
        if p.peak / p.input_bytes >= MEMORY_TARGET:
            missed.append(
                f"- reload memory at {p.scale}x, {p.peak / p.input_bytes:.2f}x: every record "
                "is held parsed as well as made into its entry."
            )
    return missed or ["Every target is met."]


METHOD = [
    f"- Sessions: seeded (seed {SEED + 10}); each turn has 0 to 3 calls (1.5 on average) of "
    "`read`, `bash` or `grep`, each result code-like lines of log-normal size (median about "
    "1.1 kB, at most 16 kB), a third of them flagged uneventful; the person's message and the "
    "answer are 20 to 400 characters. The session's window is large enough never to overflow.",
    "- Live sessions: one session per size, each turn timed (`time.perf_counter`) for the "
    "reference and then for the baseline, the garbage collector left on and never run by "
    "hand, as in a harness; the per-turn figures are min / median / max over the session's "
    "turns.",
    "- Reload: a new `HistorySession` is given a copy of the transcript's records before the "
    "timing; the timing is `reload()` (every record parsed, checked and applied). First "
    "request: `request()` on a session just loaded, which makes every message's block; next "
    "request: the same session's second `request()`, whose blocks the first made. Every "
    "other figure: medians of the timed rounds, with a `gc.collect()` before each, reference "
    "and baseline taking turns.",
    "- Steps: trim to half the request's tokens; branch to the middle turn's answer and back "
    "to the tip (two steps, two writes); fork the current conversation (every entry of the "
    "path copied under a new id); a compaction with a window the request fills (target half "
    "of it) and a summary at hand. Each is checked to have done its work, not answered that "
    "it cannot.",
    "- Memory: `tracemalloc` peak of a reload in a separate, untimed round: what it allocates "
    "beyond what existed before it (the transcript's records among that), against the "
    "transcript's UTF-8 bytes.",
    f"- Targets: reload ≤ {TIME_TARGET:g}x `json.loads`; a request ≤ {TIME_TARGET:g}x "
    f"`json.dumps`; the per-turn median ≤ {GROWTH_TARGET:g}x for 4x the turns; reload memory "
    f"< {MEMORY_TARGET:g}x the transcript's bytes. Under a budget the request does not "
    f"grow, so the allowance over a request that grows 4x becomes {BUDGET_GROWTH_TARGET:g}x; "
    "it is taken against the baseline's own growth, whose work per turn is the same at any "
    "length by construction, so that what growth it shows (caches, the collector over a "
    "larger heap, the other sessions of the run alive beside it) is the machine's. The "
    f"steps between turns share the request's ≤ {TIME_TARGET:g}x: each is a few passes "
    "over the path.",
]


def run(sizes: Sizes, earlier: ModuleType | None, rev: str | None) -> Results:
    config = HistoryConfig.load()
    lives: list[Live] = []
    trimmed: list[Live] = []
    reloads: list[Pair] = []
    firsts: list[Pair] = []
    agains: list[Pair] = []
    for scale in SCALES:
        turns = session_turns(sizes.turns * scale)
        live = live_session(scale, turns, None, earlier)
        lives.append(live)
        reloads.append(bench_reload(config, live, sizes.rounds, earlier))
        first, again = bench_requests(config, live, sizes.rounds)
        firsts.append(first)
        agains.append(again)
        trimmed.append(live_session(scale, turns, sizes.budget, earlier))
    steps = bench_steps(config, lives[-1], sizes.rounds)
    return Results(lives, trimmed, reloads, firsts + agains, steps, rev)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small sessions, for a smoke run")
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also drive the live sessions with the reference of commit REV, turn by turn",
    )
    parser.add_argument(
        "--write-readme",
        action="store_true",
        help="update the History section of bench/README.md with this run",
    )
    args = parser.parse_args(argv)
    if args.write_readme and readme.refused(README):
        return 2
    sizes = QUICK if args.quick else FULL
    load_before = _load()
    with tempfile.TemporaryDirectory(prefix="ctxconf-history-rev-") as folder:
        earlier = None
        if args.against is not None:
            try:
                earlier = earlier_history(args.against, Path(folder))
            except subprocess.CalledProcessError as error:
                reason = error.stderr.decode(errors="replace").strip().splitlines()
                print(
                    f"error: --against {args.against}: {reason[-1] if reason else error}",
                    file=sys.stderr,
                )
                return 2
        results = run(sizes, earlier, args.against)
    section = render(results, sizes, args.quick, load_before)
    if not publish(section, (START_MARKER, END_MARKER), args.write_readme):
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
