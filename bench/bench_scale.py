"""How the reference's cost grows with its input: the diff, the cap and recall at 1x, 4x and 16x.

Each benchmark runs at several sizes of one seeded input, beside a baseline over the same input
in the same run, taking turns round by round: GNU `diff -u` for an edit, SHA-256 plus
`str.split("\\n")` for a cap, and a recall from a 10 kB result for a recall from a large one.
Every figure is min / median / max of the timed rounds; peak memory is taken in a separate round
under `tracemalloc`.

    python bench/bench_scale.py                  # full sizes (about 100 MB at 16x; a few minutes)
    python bench/bench_scale.py --quick          # small sizes, a smoke run of a few seconds
    python bench/bench_scale.py --write-readme   # also update bench/README.md's section

Exit codes: 0 when every benchmark ran (whether its targets were met or not), 2 for usage errors.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import readme
from bench_reference import (
    README,
    SEED,
    GnuDiff,
    Thunk,
    _baseline,
    _repeated_lines,
    _unique_lines,
    heap_peak,
    machine_lines,
    publish,
    time_rounds,
)

from ctxconf.reference import Session
from ctxconf.reference.context.config import ContextConfig

START_MARKER = "<!-- scale:start -->"
END_MARKER = "<!-- scale:end -->"
SCALES = (1, 4, 16)


@dataclass(frozen=True)
class Sizes:
    rewrite_lines: int  # lines of each file of a whole rewrite, at 1x
    scattered_lines: int  # lines of each file with scattered changes, at 1x
    scattered_changes: int  # at every size
    seq_numbers: int  # `seq 1 N` at 1x
    output_bytes: int  # an output of 50-byte lines at 1x; also the stored result recalled
    rounds: int


FULL = Sizes(
    rewrite_lines=500,
    scattered_lines=20_000,
    scattered_changes=200,
    seq_numbers=625_000,
    output_bytes=6_250_000,
    rounds=5,
)
QUICK = Sizes(
    rewrite_lines=100,
    scattered_lines=2_000,
    scattered_changes=20,
    seq_numbers=20_000,
    output_bytes=200_000,
    rounds=3,
)


@dataclass(frozen=True)
class Point:
    """One size of one benchmark: the reference and its baseline, the same number of rounds."""

    scale: float
    input_desc: str
    input_bytes: int
    ref: list[float]
    base: list[float]
    peak: int | None = None  # bytes the call allocates at its peak beyond its input
    first: list[float] | None = None  # a recall's first call, which builds its line index

    @property
    def ratio(self) -> float:
        return statistics.median(self.ref) / statistics.median(self.base)


@dataclass(frozen=True)
class Bench:
    name: str
    call: str
    baseline: str
    target: float  # the largest ratio of medians allowed
    points: list[Point]
    memory_target: float | None = None  # (input + peak) / input allowed


# -- inputs -----------------------------------------------------------------------------------


def _text(lines: Sequence[str]) -> str:
    return "\n".join(lines) + "\n"


def rewrite_inputs(lines: int, repeated: bool) -> tuple[str, str]:
    """Two files of `lines` lines that differ on every line: a whole rewrite."""
    rng = random.Random(SEED + lines)
    make = _repeated_lines if repeated else _unique_lines
    before = make(rng, lines)
    if repeated:
        after = [
            line.replace("const ", "let ") if line.strip() else line
            for line in make(random.Random(SEED - lines), lines)
        ]
    else:
        after = [f"{line} # rewritten" for line in make(rng, lines)]
    return _text(before), _text(after)


def scattered_inputs(lines: int, changes: int) -> tuple[str, str]:
    """Two files of `lines` unique lines, one changed in `changes` places spread over it."""
    rng = random.Random(SEED + 3)
    before = _unique_lines(rng, lines)
    after = list(before)
    stretch = lines // changes
    for index in range(changes):
        at = index * stretch + rng.randrange(1, stretch - 1)
        after[at] = f"    changed_{index} = {rng.randrange(10_000)}"
    return _text(before), _text(after)


def seq_text(numbers: int) -> str:
    """What `seq 1 N` prints."""
    return "\n".join(map(str, range(1, numbers + 1))) + "\n"


def fifty_byte_lines(size: int) -> str:
    """About `size` bytes of 50-byte lines (49 characters and a newline)."""
    return "".join(f"{i:08d} {'x' * 40}\n" for i in range(size // 50))


# -- measuring --------------------------------------------------------------------------------


def _size(*texts: str) -> int:
    return sum(len(text.encode("utf-8")) for text in texts)


def _mb(size: float) -> str:
    return f"{size / 1_000_000:,.1f} MB" if size >= 100_000 else f"{size / 1000:,.1f} kB"


def edit_point(scale: float, before: str, after: str, folder: Path, rounds: int) -> Point:
    config = ContextConfig.load()
    gnu = GnuDiff(before, after, folder, f"scale-{scale:g}")

    def ref() -> Thunk:
        session = Session(config)
        return lambda: session.edit("src/big.py", before, after)

    assert "\n@@ -" in str(ref()())
    base, ref_times = time_rounds([gnu.prepare, ref], rounds)
    lines = before.count("\n")
    return Point(
        scale,
        f"2 x {lines:,} lines, {_mb(_size(before, after))}",
        _size(before, after),
        ref_times,
        base,
    )


def cap_point(scale: float, text: str, rounds: int) -> Point:
    config = ContextConfig.load()

    def ref() -> Thunk:
        session = Session(config)
        return lambda: session.output("bash", {"command": "make"}, text)

    assert "lines elided" in str(ref()())
    base, ref_times = time_rounds([lambda: _baseline(text), ref], rounds)
    return Point(
        scale,
        f"{text.count(chr(10)):,} lines, {_mb(_size(text))}",
        _size(text),
        ref_times,
        base,
        peak=heap_peak(ref),
    )


def recall_point(scale: float, text: str, small: str, rounds: int) -> Point:
    """A 2,000-line window at the end of `text`, recalled the first time (which indexes the
    result) and again, beside a recall of all of `small`."""
    config = ContextConfig.load()
    total = text.count("\n")

    def stored(content: str) -> Session:
        session = Session(config)
        session.output("bash", {"command": "make"}, content)
        return session

    def first() -> Thunk:
        session = stored(text)
        return lambda: session.recall("#0001", offset=total - 1999)

    def again() -> Thunk:
        session = stored(text)
        session.recall("#0001", offset=total - 1999)
        return lambda: session.recall("#0001", offset=total - 1999)

    def base() -> Thunk:
        session = stored(small)
        session.recall("#0001")
        return lambda: session.recall("#0001")

    assert f"lines {total - 1999}-{total} of {total}]" in str(again()())
    base_times, ref_times, first_times = time_rounds([base, again, first], rounds)
    return Point(
        scale,
        f"{total:,} lines, {_mb(_size(text))}",
        _size(text),
        ref_times,
        base_times,
        first=first_times,
    )


# -- the benchmarks ---------------------------------------------------------------------------


def bench_rewrite(sizes: Sizes, folder: Path, repeated: bool) -> Bench:
    scales = (1, 4, 10, 16)  # 10x: the 5,000-line files of the target
    points = []
    for scale in scales:
        before, after = rewrite_inputs(sizes.rewrite_lines * scale, repeated)
        points.append(edit_point(scale, before, after, folder, sizes.rounds))
    kind = "brace-style code, blank lines and `}` shared" if repeated else "no line shared"
    return Bench(
        f"diff, every line rewritten ({kind})",
        "`Session().edit(path, before, after)`",
        "GNU `diff -u`",
        5.0,
        points,
    )


def bench_scattered(sizes: Sizes, folder: Path) -> Bench:
    points = []
    for scale in SCALES:
        before, after = scattered_inputs(sizes.scattered_lines * scale, sizes.scattered_changes)
        points.append(edit_point(scale, before, after, folder, sizes.rounds))
    return Bench(
        f"diff, {sizes.scattered_changes} scattered changes",
        "`Session().edit(path, before, after)`",
        "GNU `diff -u`",
        2.0,
        points,
    )


def bench_cap(sizes: Sizes, name: str, make: Callable[[int], str], base_size: int) -> Bench:
    points = [cap_point(scale, make(base_size * scale), sizes.rounds) for scale in SCALES]
    return Bench(
        name,
        '`Session().output("bash", …, text)`',
        "SHA-256 + `str.split`",
        1.0,
        points,
        memory_target=1.5,
    )


def bench_recall(sizes: Sizes) -> Bench:
    small = fifty_byte_lines(10_000)
    points = [
        recall_point(scale, fifty_byte_lines(sizes.output_bytes * scale), small, sizes.rounds)
        for scale in SCALES
    ]
    return Bench(
        "recall, the last 2,000 lines",
        '`recall("#0001", offset=total - 1999)`',
        "a recall of a 10 kB result (200 lines)",
        5.0,
        points,
    )


# -- reporting --------------------------------------------------------------------------------


def _ms(seconds: float) -> str:
    if seconds < 0.001:
        return f"{seconds * 1_000_000:,.0f} µs"
    return f"{seconds * 1000:,.1f} ms" if seconds < 10 else f"{seconds:,.1f} s"


def _spread(times: Sequence[float]) -> str:
    """min / median / max."""
    return " / ".join(_ms(t) for t in (min(times), statistics.median(times), max(times)))


def table(bench: Bench) -> list[str]:
    out = [
        f"**{bench.name}**: {bench.call} beside {bench.baseline}; target ≤ {bench.target:g}x "
        "(medians)"
        + (
            ""
            if bench.memory_target is None
            else f", memory (input + peak) < {bench.memory_target:g}x the input"
        ),
        "",
        "| size | input | reference min / median / max | baseline min / median / max | ratio "
        "| verdict |"
        + (" peak beyond the input | (input + peak) / input |" if bench.memory_target else ""),
        "|---:|---|---:|---:|---:|---|" + ("---:|---:|" if bench.memory_target else ""),
    ]
    for p in bench.points:
        verdict = "PASS" if p.ratio <= bench.target else "MISS"
        row = (
            f"| {p.scale:g}x | {p.input_desc} | {_spread(p.ref)} | {_spread(p.base)} | "
            f"{p.ratio:.2f}x | {verdict} |"
        )
        if bench.memory_target is not None and p.peak is not None:
            whole = (p.input_bytes + p.peak) / p.input_bytes
            mark = "PASS" if whole < bench.memory_target else "MISS"
            row += f" {_mb(p.peak)} | {whole:.2f}x {mark} |"
        out.append(row)
    firsts = [p for p in bench.points if p.first is not None]
    if firsts:
        out += [
            "",
            "The first recall of a result also indexes its line starts (one count of its "
            "`\\n` in C, chunk by chunk); later recalls use the index:",
            "",
            "| size | first recall min / median / max | vs the 10 kB recall |",
            "|---:|---:|---:|",
        ]
        for p in firsts:
            assert p.first is not None
            ratio = statistics.median(p.first) / statistics.median(p.base)
            out.append(f"| {p.scale:g}x | {_spread(p.first)} | {ratio:.0f}x |")
    return out


def render(benches: Sequence[Bench], quick: bool, load_before: str, rounds: int) -> str:
    process_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    parts = [
        "## Growth with the input",
        "",
        "`bench/bench_scale.py`: each benchmark at 1x, 4x and 16x its input, beside its baseline "
        "over the same input, in one run; min / median / max of the timed rounds.",
        "",
        *machine_lines(),
        f"- Mode: {'quick (smoke sizes)' if quick else 'full'}; {rounds} timed rounds per "
        f"figure, reference and baseline alternating; the bench process reached "
        f"{_mb(process_rss)} max RSS in all; load average (1, 5, 15 min) {load_before} before "
        f"the run, {_load()} after it, on {os.cpu_count()} CPUs.",
        "",
    ]
    for bench in benches:
        parts += [*table(bench), ""]
    parts += [
        "Memory is `tracemalloc`'s peak in an untimed round: what the call allocates beyond what "
        "existed before it, the input among the latter. GNU diff and the baselines run as in "
        "the Reference section above.",
    ]
    return "\n".join(parts) + "\n"


def _load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small inputs, for a smoke run")
    parser.add_argument(
        "--write-readme",
        action="store_true",
        help="update the growth section of bench/README.md with this run",
    )
    args = parser.parse_args(argv)
    if args.write_readme and readme.refused(README):
        return 2
    if shutil.which("diff") is None:
        print("error: GNU diff is not on PATH (hint: install diffutils)", file=sys.stderr)
        return 2
    sizes = QUICK if args.quick else FULL
    load_before = _load()
    benches: list[Bench] = []
    with tempfile.TemporaryDirectory(prefix="ctxconf-scale-") as folder:
        benches.append(bench_rewrite(sizes, Path(folder), repeated=False))
        benches.append(bench_rewrite(sizes, Path(folder), repeated=True))
        benches.append(bench_scattered(sizes, Path(folder)))
    benches.append(bench_cap(sizes, "cap, `seq 1 N`", seq_text, sizes.seq_numbers))
    benches.append(bench_cap(sizes, "cap, 50-byte lines", fifty_byte_lines, sizes.output_bytes))
    benches.append(bench_recall(sizes))
    section = render(benches, args.quick, load_before, sizes.rounds)
    if not publish(section, (START_MARKER, END_MARKER), args.write_readme):
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
