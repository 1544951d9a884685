"""Many probes at once: every pair of harness and scenario asked for, each in a `ctxconf probe`
process of its own (its own mock on its own port, its own home and work folders, its own clock),
at most `jobs` at a time, each writing DIR/HARNESS-SCENARIO.{json,html,txt}."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TextIO

from ctxconf.terminal.controls import visible_controls

from .errors import ProbeDataError

EXIT_INTERRUPTED = 130


@dataclass(frozen=True)
class Pair:
    harness: str
    scenario: str

    @property
    def stem(self) -> str:
        return f"{Path(self.harness).stem}-{Path(self.scenario).stem}"


@dataclass(frozen=True)
class Done:
    pair: Pair
    exit_code: int
    seconds: float
    last_line: str


def pairs(harnesses: Sequence[str], scenarios: Sequence[str]) -> list[Pair]:
    """Every harness with every scenario, harness by harness; refused when two pairs would write
    the same files."""
    out = [Pair(h, s) for h in harnesses for s in scenarios]
    stems: dict[str, Pair] = {}
    for pair in out:
        earlier = stems.setdefault(pair.stem, pair)
        if earlier is not pair:
            raise ProbeDataError(
                f"--harness {pair.harness} --scenario {pair.scenario} and --harness "
                f"{earlier.harness} --scenario {earlier.scenario} would write the same files "
                f"({pair.stem}.*): name each harness and scenario once"
            )
    return out


def _command(pair: Pair, folder: Path, options: Sequence[str]) -> list[str]:
    stem = folder / pair.stem
    return [
        sys.executable, "-m", "ctxconf", "probe",
        "--harness", pair.harness, "--scenario", pair.scenario,
        "--json", f"{stem}.json", "--html", f"{stem}.html",
        *options,
    ]  # fmt: skip


class _Children:
    """The probe processes under way, so that a signal reaches each of them once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()
        self.stopping = False

    def start(self, argv: list[str], log: TextIO) -> subprocess.Popen[bytes] | None:
        with self._lock:
            if self.stopping:
                return None
            # A session of its own: a Ctrl-C reaches the batch alone, which passes it on once.
            child = subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
            self._running.add(child)
            return child

    def ended(self, child: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._running.discard(child)

    def stop(self, signum: int) -> None:
        """Pass the signal on; each probe ends its harness and writes what it found."""
        with self._lock:
            self.stopping = True
            for child in self._running:
                if child.poll() is None:
                    child.send_signal(signal.SIGINT if signum == signal.SIGINT else signal.SIGTERM)


def _last_line(path: Path) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return visible_controls(lines[-1]) if lines else ""


def _run_one(pair: Pair, folder: Path, options: Sequence[str], children: _Children) -> Done:
    text = folder / f"{pair.stem}.txt"
    started = time.monotonic()
    with text.open("w", encoding="utf-8") as log:
        child = children.start(_command(pair, folder, options), log)
        if child is None:
            log.write("not started: interrupted\n")  # its file says why it holds no more
            return Done(pair, EXIT_INTERRUPTED, 0.0, "not started: interrupted")
        try:
            code = child.wait()
        finally:
            children.ended(child)
    said = _last_line(text)
    if code == EXIT_INTERRUPTED and "interrupted" not in said:
        # Stopped before it could say so (while it loaded): the line says it all the same.
        said = f"interrupted: {said}" if said else "interrupted"
    return Done(pair, code, time.monotonic() - started, said)


def probe_many(
    todo: Sequence[Pair], jobs: int, folder: Path, options: Sequence[str], out: TextIO
) -> int:
    """Run every pair, `jobs` at a time; a line per pair as it ends. The exit code is the worst
    of theirs (2 a usage error, 1 a check failed), 130 when interrupted."""
    if jobs < 1:
        raise ProbeDataError(f"--jobs {jobs}: give at least 1")
    folder.mkdir(parents=True, exist_ok=True)
    children = _Children()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        children.stop(signum)

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    worst, finished = 0, 0
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_run_one, p, folder, options, children) for p in todo]
            for future in as_completed(futures):
                done = future.result()
                finished += 1
                worst = max(worst, done.exit_code if done.exit_code >= 0 else 1)
                out.write(
                    f"[{finished}/{len(todo)}] {done.pair.stem}: exit {done.exit_code} in "
                    f"{done.seconds:.0f} s: {done.last_line}\n"
                )
                out.flush()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if children.stopping:
        return EXIT_INTERRUPTED
    out.write(f"results in {folder}{os.sep}\n")
    return worst


__all__ = ["Pair", "pairs", "probe_many"]
