"""Benchmarks of the reference implementation (`ctxconf.reference`) beside simple baselines.

Each benchmark times one `Session` call on a large, seeded input and, in the same run, a
baseline over the same input: for a read, a cap and a repeated listing the baseline is what any
harness must at least do with the text (SHA-256 of its UTF-8 bytes and `str.split("\\n")`); for
an edit it is GNU `diff -u` on the same two files, run as a subprocess.

Times are medians of several rounds (`time.perf_counter`), reference and baseline alternating
round by round so that a busy machine slows both alike. Peak memory is taken in a separate round
under `tracemalloc`, which would slow the timed rounds; GNU diff, a program of its own, is
measured by its maximum resident set size as GNU time (`/usr/bin/time`) reports it.

    python bench/bench_reference.py                  # full sizes, prints markdown tables
    python bench/bench_reference.py --quick          # small sizes, a smoke run of a few seconds
    python bench/bench_reference.py --write-readme   # also update bench/README.md's section

Exit codes: 0 when every benchmark ran (whether its targets were met or not), 2 for usage errors.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import hashlib
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import readme  # a sibling script, not a package

import ctxconf.reference as reference_package
from ctxconf.reference import Session
from ctxconf.reference.context.config import ContextConfig
from ctxconf.reference.context.diff import unified_diff
from ctxconf.userfiles.atomic import write_text_atomic

README = Path(__file__).parent / "README.md"
START_MARKER = "<!-- reference:start -->"
END_MARKER = "<!-- reference:end -->"
SEED = 20261130
GNU_TIME = "/usr/bin/time"

# Targets: the reference may cost this many times its baseline, and may hold at its peak this
# many times the size of its input (UTF-8 bytes).
TIME_TARGETS = {"text": 3.0, "diff": 20.0}
MEMORY_TARGET = 4.0

# A prepared call: setup (sessions, files) happens before it is returned, outside any timing.
Thunk = Callable[[], object]
Prepare = Callable[[], Thunk]


@dataclass(frozen=True)
class Sizes:
    read_lines: int
    cap_lines: int
    cap_bytes: int
    listing_bytes: int
    diff_lines: int
    diff_changes: int
    rounds: int


FULL = Sizes(
    read_lines=1_000_000,
    cap_lines=2_000_000,
    cap_bytes=100_000_000,
    listing_bytes=10_000_000,
    diff_lines=20_000,
    diff_changes=200,
    rounds=7,
)
QUICK = Sizes(
    read_lines=20_000,
    cap_lines=40_000,
    cap_bytes=2_000_000,
    listing_bytes=200_000,
    diff_lines=2_000,
    diff_changes=20,
    rounds=3,
)


@dataclass(frozen=True)
class Row:
    """One benchmark: the reference beside its baseline, in time and in memory."""

    name: str
    call: str
    baseline: str
    input_desc: str
    input_bytes: int
    ref_times: list[float]
    base_times: list[float]
    ref_peak: int
    base_peak: int | None
    base_peak_kind: str  # "heap" (tracemalloc) or "rss" (a child's maximum resident set)
    time_target: float

    @property
    def ref_median(self) -> float:
        return statistics.median(self.ref_times)

    @property
    def base_median(self) -> float:
        return statistics.median(self.base_times)

    @property
    def ratio(self) -> float:
        return self.ref_median / self.base_median

    @property
    def memory_ratio(self) -> float:
        return self.ref_peak / self.input_bytes


@dataclass(frozen=True)
class DiffProfile:
    """Where an edit's time goes: the pure-Python diff alone, and the edit distance it found."""

    name: str
    lines: int
    repeated_share: float
    distance: int
    diff_median: float
    edit_median: float
    gnu_median: float


# -- inputs -----------------------------------------------------------------------------------

_WORDS = (
    "alpha beta gamma delta value count index result buffer config session reader writer "
    "parse render load store fetch update limit offset window cursor token stream record "
    "table entry handle option error status target source format encode decode"
).split()


def _code_line(rng: random.Random, width: int) -> str:
    """A line that looks like source code, about `width` characters long."""
    indent = " " * (4 * rng.randrange(4))
    parts: list[str] = []
    length = len(indent)
    while length < width:
        word = rng.choice(_WORDS)
        parts.append(word)
        length += len(word) + 1
    return indent + " ".join(parts)[: max(0, width - len(indent))]


def _pooled_text(rng: random.Random, lines: int, mean_width: int) -> str:
    """`lines` lines (each ending in `\\n`) drawn from a seeded pool of code-like lines."""
    pool = [_code_line(rng, rng.randrange(2 * mean_width + 1)) for _ in range(4096)]
    return "\n".join(rng.choices(pool, k=lines)) + "\n"


def read_input(sizes: Sizes) -> str:
    return _pooled_text(random.Random(SEED), sizes.read_lines, 40)


def cap_input(sizes: Sizes) -> str:
    # Lines average `cap_bytes / cap_lines` bytes with their `\n`.
    mean_width = sizes.cap_bytes // sizes.cap_lines - 1
    return _pooled_text(random.Random(SEED + 1), sizes.cap_lines, mean_width)


def listing_input(sizes: Sizes) -> str:
    """A recursive directory listing of about `listing_bytes` bytes, one path a line."""
    rng = random.Random(SEED + 2)
    out: list[str] = []
    size = 0
    n = 0
    while size < sizes.listing_bytes:
        path = (
            f"src/{rng.choice(_WORDS)}_{n // 400}/{rng.choice(_WORDS)}/"
            f"{rng.choice(_WORDS)}_{n}.{rng.choice(('py', 'ts', 'md', 'json'))}"
        )
        out.append(path)
        size += len(path) + 1
        n += 1
    return "\n".join(out) + "\n"


def _unique_lines(rng: random.Random, count: int) -> list[str]:
    return [
        f"{' ' * (4 * rng.randrange(3))}{rng.choice(_WORDS)}_{i} = "
        f"{rng.choice(_WORDS)}({rng.randrange(10_000)}, {rng.choice(_WORDS)})"
        for i in range(count)
    ]


def _repeated_lines(rng: random.Random, count: int) -> list[str]:
    """Brace-style code: about half the lines are blank, `}` or another line seen many times."""
    lines: list[str] = []
    block = 0
    while len(lines) < count:
        lines.append(f"function {rng.choice(_WORDS)}_{block}(options) {{")
        for _ in range(rng.randrange(1, 4)):
            lines.append(f"    const {rng.choice(_WORDS)}_{len(lines)} = {rng.randrange(1000)};")
            lines.append(rng.choice(("", "    }", "    return;")))
        lines.append("}")
        lines.append("")
        block += 1
    return lines[:count]


def _changed(rng: random.Random, lines: list[str], changes: int) -> list[str]:
    """`lines` with `changes` scattered changes: one in each of `changes` equal stretches."""
    stretch = len(lines) // changes
    out: list[str] = []
    for index in range(changes):
        start = index * stretch
        end = len(lines) if index == changes - 1 else start + stretch
        at = rng.randrange(start + 1, end - 1)
        kind = rng.random()
        fresh = f"    changed_{index} = {rng.choice(_WORDS)}({rng.randrange(10_000)})"
        out.extend(lines[start:at])
        if kind < 0.6:  # replace a line
            out.append(fresh)
            out.extend(lines[at + 1 : end])
        elif kind < 0.8:  # insert a line
            out.append(fresh)
            out.extend(lines[at:end])
        else:  # delete a line
            out.extend(lines[at + 1 : end])
    return out


def diff_inputs(sizes: Sizes, repeated: bool) -> tuple[str, str]:
    rng = random.Random(SEED + (4 if repeated else 3))
    make = _repeated_lines if repeated else _unique_lines
    before = make(rng, sizes.diff_lines)
    after = _changed(rng, before, sizes.diff_changes)
    return "\n".join(before) + "\n", "\n".join(after) + "\n"


# -- measuring --------------------------------------------------------------------------------


def _baseline(text: str) -> Thunk:
    def run() -> object:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return digest, text.split("\n")

    return run


def time_rounds(subjects: Sequence[Prepare], rounds: int) -> list[list[float]]:
    """Seconds per round of each subject, taking turns round by round: a spike of load from
    elsewhere on the machine hits them all rather than one of them."""
    times: list[list[float]] = [[] for _ in subjects]
    for _ in range(rounds):
        for prepare, seconds in zip(subjects, times, strict=True):
            thunk = prepare()
            gc.collect()
            started = time.perf_counter()
            result = thunk()
            seconds.append(time.perf_counter() - started)
            del result
    return times


def time_pair(ref: Prepare, base: Prepare, rounds: int) -> tuple[list[float], list[float]]:
    base_times, ref_times = time_rounds([base, ref], rounds)
    return ref_times, base_times


def heap_peak(prepare: Prepare) -> int:
    """Bytes allocated at the peak of one call, beyond what existed before it (tracemalloc)."""
    thunk = prepare()
    gc.collect()
    tracemalloc.start()
    try:
        result = thunk()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak


class GnuDiff:
    """GNU `diff -u` on two files written once to a temporary folder."""

    def __init__(self, before: str, after: str, folder: Path, stem: str) -> None:
        self.a = folder / f"{stem}.a"
        self.b = folder / f"{stem}.b"
        self.a.write_text(before, encoding="utf-8")
        self.b.write_text(after, encoding="utf-8")
        self.out = folder / f"{stem}.diff"

    def argv(self) -> list[str]:
        return ["diff", "-u", str(self.a), str(self.b)]

    def prepare(self) -> Thunk:
        def run() -> object:
            done = subprocess.run(self.argv(), stdout=subprocess.PIPE, check=False)
            if done.returncode != 1:  # 1: the files differ
                raise RuntimeError(f"diff exited {done.returncode}")
            return done.stdout

        return run

    def max_rss(self) -> int | None:
        """The child's maximum resident set size in bytes, as GNU time reports it.

        `os.wait4` on a direct child would not do: the child starts as a vfork of this large
        process, and Linux carries that high-water mark across `exec`. GNU time forks diff from
        its own small image, so the figure is diff's alone. None when GNU time is missing.
        """
        if not Path(GNU_TIME).exists():
            return None
        report = self.out.with_suffix(".time")
        with open(self.out, "wb") as out:
            subprocess.run(
                [GNU_TIME, "-f", "%M", "-o", str(report), *self.argv()], stdout=out, check=False
            )
        # GNU time writes "Command exited with non-zero status 1" before the figure.
        kilobytes = int(report.read_text(encoding="utf-8").split()[-1])
        return kilobytes * 1024


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _lines_of(text: str) -> int:
    return text.count("\n")


def _text_row(
    name: str,
    call: str,
    text: str,
    ref: Prepare,
    check: Callable[[str], bool],
    rounds: int,
) -> Row:
    """A row for a call over one text, beside the SHA-256 + split baseline over the same text."""
    result = ref()()
    assert isinstance(result, str) and check(result), f"{name}: unexpected result"
    ref_times, base_times = time_pair(ref, lambda: _baseline(text), rounds)
    return Row(
        name=name,
        call=call,
        baseline="SHA-256 + `str.split`",
        input_desc=f"{_lines_of(text):,} lines, {_mb(_size(text))}",
        input_bytes=_size(text),
        ref_times=ref_times,
        base_times=base_times,
        ref_peak=heap_peak(ref),
        base_peak=heap_peak(lambda: _baseline(text)),
        base_peak_kind="heap",
        time_target=TIME_TARGETS["text"],
    )


def bench_read(sizes: Sizes, config: ContextConfig) -> Row:
    content = read_input(sizes)

    def ref() -> Thunk:
        session = Session(config)
        return lambda: session.read("src/big.txt", content)

    return _text_row(
        "read",
        "`Session().read(path, content)`, default window",
        content,
        ref,
        lambda out: out.startswith("[#0001"),
        sizes.rounds,
    )


def bench_cap(sizes: Sizes, config: ContextConfig) -> Row:
    text = cap_input(sizes)

    def ref() -> Thunk:
        session = Session(config)
        return lambda: session.output("bash", {"command": "make test"}, text)

    return _text_row(
        "cap",
        '`Session().output("bash", …, text)`',
        text,
        ref,
        lambda out: "lines elided, full output #0001" in out,
        sizes.rounds,
    )


def bench_dedupe(sizes: Sizes, config: ContextConfig) -> Row:
    text = listing_input(sizes)
    # A tool hands the harness a new string each time: compare equal texts, not one object.
    again = text.encode("utf-8").decode("utf-8")
    assert again is not text

    def ref() -> Thunk:
        session = Session(config)

        def run() -> object:
            first = session.output("list", {"path": "."}, text)
            second = session.output("list", {"path": "."}, again)
            return first, second

        return run

    session = Session(config)
    session.output("list", {"path": "."}, text)
    second = session.output("list", {"path": "."}, again)
    assert second == "[#0002] Same result as #0001.", second
    ref_times, base_times = time_pair(ref, lambda: _baseline(text), sizes.rounds)
    return Row(
        name="dedupe",
        call='`output("list", {"path": "."}, text)` twice',
        baseline="SHA-256 + `str.split`",
        input_desc=f"{_lines_of(text):,} lines, {_mb(_size(text))}",
        input_bytes=_size(text),
        ref_times=ref_times,
        base_times=base_times,
        ref_peak=heap_peak(ref),
        base_peak=heap_peak(lambda: _baseline(text)),
        base_peak_kind="heap",
        time_target=TIME_TARGETS["text"],
    )


def bench_diff(
    sizes: Sizes, config: ContextConfig, folder: Path, repeated: bool
) -> tuple[Row, DiffProfile]:
    """`Session().edit` beside GNU diff, and the pure-Python diff alone (no session, no cap)."""
    before, after = diff_inputs(sizes, repeated)
    label = "repeated" if repeated else "unique"
    gnu = GnuDiff(before, after, folder, label)

    def ref() -> Thunk:
        session = Session(config)
        return lambda: session.edit("src/big.js", before, after)

    def diff() -> str:
        return unified_diff(before, after, config.diff_context, config.texts, config.diff_max_edit)

    check = ref()()
    assert isinstance(check, str) and "\n@@ -" in check
    base_times, ref_times, diff_times = time_rounds([gnu.prepare, ref, lambda: diff], sizes.rounds)
    row = Row(
        name=f"diff ({label} lines)",
        call="`Session().edit(path, before, after)`",
        baseline="GNU `diff -u` (subprocess)",
        input_desc=(
            f"2 x {sizes.diff_lines:,} lines, {sizes.diff_changes} changes, "
            f"{_mb(_size(before) + _size(after))}"
        ),
        input_bytes=_size(before) + _size(after),
        ref_times=ref_times,
        base_times=base_times,
        ref_peak=heap_peak(ref),
        base_peak=gnu.max_rss(),
        base_peak_kind="rss",
        time_target=TIME_TARGETS["diff"],
    )
    # Every changed line is in the hunks, so they tell the length D of the edit script.
    distance = sum(line[:1] in ("-", "+") for line in diff().split("\n"))
    lines = before.split("\n")[:-1]
    repeated_share = sum(n for n in Counter(lines).values() if n > 1) / len(lines)
    profile = DiffProfile(
        name=f"{label} lines",
        lines=len(lines),
        repeated_share=repeated_share,
        distance=distance,
        diff_median=statistics.median(diff_times),
        edit_median=row.ref_median,
        gnu_median=row.base_median,
    )
    return row, profile


# -- reporting --------------------------------------------------------------------------------


def _mb(size: float) -> str:
    return f"{size / 1_000_000:.1f} MB"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms" if seconds < 10 else f"{seconds:,.1f} s"


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def _spread(times: Sequence[float]) -> str:
    """min / median / max."""
    return " / ".join(_ms(t) for t in (min(times), statistics.median(times), max(times)))


def time_table(rows: Sequence[Row]) -> list[str]:
    out = [
        "| Benchmark | Reference call | Input | Reference min / median / max | Baseline | "
        "Baseline min / median / max | Ratio (medians) | Target | Verdict |",
        "|---|---|---|---:|---|---:|---:|---:|---|",
    ]
    for row in rows:
        out.append(
            f"| {row.name} | {row.call} | {row.input_desc} | {_spread(row.ref_times)} | "
            f"{row.baseline} | {_spread(row.base_times)} | {row.ratio:.2f}x | "
            f"≤ {row.time_target:g}x | {_verdict(row.ratio <= row.time_target)} |"
        )
    return out


def memory_table(rows: Sequence[Row]) -> list[str]:
    out = [
        "| Benchmark | Input size | Reference peak (heap) | Peak / input | Target | Verdict | "
        "Baseline peak |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for row in rows:
        kind = "heap" if row.base_peak_kind == "heap" else "max RSS"
        base = "n/a" if row.base_peak is None else f"{_mb(row.base_peak)} ({kind})"
        out.append(
            f"| {row.name} | {_mb(row.input_bytes)} | {_mb(row.ref_peak)} | "
            f"{row.memory_ratio:.2f}x | < {MEMORY_TARGET:g}x | "
            f"{_verdict(row.memory_ratio < MEMORY_TARGET)} | {base} |"
        )
    return out


def diff_table(profiles: Sequence[DiffProfile]) -> list[str]:
    out = [
        "| Diff input | Lines | Lines repeated in the file | Edit distance D | "
        "`unified_diff` alone | `Session().edit` | GNU `diff -u` |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for p in profiles:
        out.append(
            f"| {p.name} | {p.lines:,} | {p.repeated_share:.0%} | {p.distance:,} | "
            f"{_ms(p.diff_median)} | {_ms(p.edit_median)} | "
            f"{_ms(p.gnu_median)} |"
        )
    return out


# Why a benchmark can miss its target, from profiling the reference (cProfile, tracemalloc):
# printed under the tables only for the targets a run misses.
MISS_NOTES = {
    ("time", "read"): "`read` hashes the whole content and counts its lines but splits only as "
    "far as the window; a miss means the window's split and numbering outweigh one whole split.",
    ("time", "cap"): "`cap_text` counts the output's `\\n` and looks for a few hundred line "
    "ends from each end; a miss means the count of a text this size outweighs SHA-256 and a "
    "split, which it never has.",
    ("time", "dedupe"): "The first listing is capped like any output; the second only compares "
    "the two texts.",
    ("time", "diff"): "Myers' search runs a Python step per diagonal per round (about D * D / 4 "
    "of them once the diagonals too far from the end are left out), where GNU diff runs in C; "
    "splitting both texts into lines is most of the rest.",
    ("memory", "read"): "`line_window` splits with a limit, which leaves the rest of the text "
    "as one more string (a copy of nearly all of it); hashing encodes another copy.",
    ("memory", "cap"): "`cap_text` keeps only the head and the tail it shows; a miss would "
    "mean a copy of the text somewhere.",
    ("memory", "dedupe"): "The listing is kept for the next comparison: one reference to the "
    "text, no copy.",
    ("memory", "diff"): "The edit holds every line of both files as its own `str` (about 50 "
    "bytes of header each) and a list slot, so short lines outweigh the text several times "
    "over.",
}


def _family(row: Row) -> str:
    return row.name.split()[0]


def notes(rows: Sequence[Row]) -> list[str]:
    """One line per kind of miss, naming every row that shows it."""
    missed: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        if row.ratio > row.time_target:
            missed.setdefault(("time", _family(row)), []).append(f"{row.name} {row.ratio:.2f}x")
        if row.memory_ratio >= MEMORY_TARGET:
            missed.setdefault(("memory", _family(row)), []).append(
                f"{row.name} {row.memory_ratio:.2f}x"
            )
    return [
        f"- {kind.capitalize()}, {'; '.join(names)}: {MISS_NOTES[kind, family]}"
        for (kind, family), names in missed.items()
    ] or ["Every target is met."]


def _reference_version() -> str:
    """The commit of the checkout, if any, and a digest of the reference sources measured."""
    sources = Path(reference_package.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(sources.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    commit = subprocess.run(
        ["git", "-C", str(sources), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    where = f"commit {commit}, " if commit else ""
    return f"{where}sources sha256 {digest.hexdigest()[:12]}"


def machine_lines() -> list[str]:
    model = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    diff_version = subprocess.run(
        ["diff", "--version"], capture_output=True, text=True, check=False
    ).stdout.splitlines()[:1]
    return [
        f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- Machine: {os.cpu_count()} CPUs (nproc), {model}; {platform.system()} "
        f"{platform.release()}",
        f"- Python {platform.python_version()} ({platform.python_implementation()}); "
        f"{diff_version[0] if diff_version else 'diff: unknown version'}",
        f"- Reference measured: {_reference_version()}",
    ]


def render(
    rows: Sequence[Row],
    profiles: Sequence[DiffProfile],
    sizes: Sizes,
    quick: bool,
    load_before: float,
) -> str:
    mode = "quick (smoke sizes)" if quick else "full"
    process_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    parts = [
        "## Reference",
        "",
        "`bench/bench_reference.py` times the reference implementation (`ctxconf.reference`) "
        "on large seeded inputs beside a baseline over the same input, in the same run.",
        "",
        *machine_lines(),
        f"- Mode: {mode}; {sizes.rounds} timed rounds per figure, reference and baseline "
        "alternating; the bench process reached "
        f"{_mb(process_rss)} max RSS in all; load average (1 min) {load_before:.2f} before "
        f"the run, {os.getloadavg()[0]:.2f} after it, on {os.cpu_count()} CPUs.",
        "",
        "### Time",
        "",
        *time_table(rows),
        "",
        "### Memory",
        "",
        *memory_table(rows),
        "",
        "### Diff: where the time goes",
        "",
        *diff_table(profiles),
        "",
        "### Why a target is missed",
        "",
        *notes(rows),
        "",
        "### Method",
        "",
        "- Times are medians of the timed rounds (`time.perf_counter`), with a `gc.collect()` "
        "before each round and the garbage collector left on, as in a harness. A fresh "
        "`Session` is made before each round, outside the timing (loading `loop.json` is a "
        "one-off cost).",
        "- Baselines: for read, cap and dedupe, SHA-256 of the text's UTF-8 bytes plus "
        '`text.split("\\n")`, the least a harness does with a text it hashes and counts. '
        "For an edit, GNU `diff -u` on the same two files, timed as a whole subprocess "
        "(start-up included, its output read through a pipe).",
        "- The second listing is a distinct string equal to the first, as a tool would return "
        'it; the run checks that it answers with the stub "Same result as". The dedupe '
        "time is both calls together, against one baseline over the text.",
        "- Memory: `tracemalloc` peak in a separate, untimed round (tracing slows Python "
        "several times over, so it never shares a round with a timing). It counts what the "
        "call allocates beyond what existed before it, so the input itself and the "
        "interpreter are left out, and unlike RSS it does not depend on what the allocator "
        "kept from earlier rounds. It sees only Python's allocators; hashlib's small state is "
        "not in it. GNU diff is a separate program, so its figure is its maximum resident "
        "set as `/usr/bin/time -f %M` reports it, which includes its own binary and libc "
        "(`os.wait4` on a direct child would report this process's high-water mark, which "
        "Linux carries across the child's `exec`).",
        "- Input size is the UTF-8 bytes of the text(s) the call receives (both files for an "
        "edit, one copy of the listing for dedupe). Inputs are ASCII and generated from "
        f"seed {SEED}.",
    ]
    return "\n".join(parts) + "\n"


def write_readme(
    section: str, path: Path = README, markers: tuple[str, str] = (START_MARKER, END_MARKER)
) -> None:
    """Replace the text between a benchmark's markers (this one's by default), leaving the
    rest of the file alone; a section not there yet goes at the end."""
    start_marker, end_marker = markers
    block = f"{start_marker}\n{section}{end_marker}"
    current = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    start = current.find(start_marker)
    end = current.find(end_marker)
    if start == -1 or end == -1 or end < start:
        joined = current.rstrip("\n") + "\n\n" + block + "\n"
    else:
        joined = current[:start] + block + current[end + len(end_marker) :]
    # In one move: an interrupted write must not lose the hand-written text around the sections.
    write_text_atomic(path, joined)


def publish(section: str, markers: tuple[str, str], write: bool) -> bool:
    """Print a benchmark's section; with `write`, also put it between its markers in the README;
    False when the README could not be written (why, on stderr)."""
    print(section, end="")
    if write:
        if not readme.written(lambda: write_readme(section, markers=markers)):
            return False
        print(f"\nwrote {README}", file=sys.stderr)
    return True


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small inputs, for a smoke run")
    parser.add_argument(
        "--write-readme",
        action="store_true",
        help="update the Reference section of bench/README.md with this run's figures",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.write_readme and readme.refused(README):
        return 2
    if shutil.which("diff") is None:
        print("error: GNU diff is not on PATH (hint: install diffutils)", file=sys.stderr)
        return 2
    sizes = QUICK if args.quick else FULL
    config = ContextConfig.load()
    load_before = os.getloadavg()[0]
    rows: list[Row] = []
    profiles: list[DiffProfile] = []
    # Each benchmark frees its input before the next one builds its own.
    rows.append(bench_read(sizes, config))
    rows.append(bench_cap(sizes, config))
    rows.append(bench_dedupe(sizes, config))
    with tempfile.TemporaryDirectory(prefix="ctxconf-bench-") as folder:
        for repeated in (False, True):
            row, profile = bench_diff(sizes, config, Path(folder), repeated)
            rows.append(row)
            profiles.append(profile)
    section = render(rows, profiles, sizes, args.quick, load_before)
    return 0 if publish(section, (START_MARKER, END_MARKER), args.write_readme) else 2


if __name__ == "__main__":
    sys.exit(main())
