"""An interrupted `ctxconf run`, as a user or CI stops it: SIGINT, SIGTERM and SIGHUP keep the
previous results until the run ends, then leave the cases done in a whole file marked
interrupted, exit 130, and leave no implementation process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from ctxconf.runner.results import load
from tests.cli import ctxconf
from tests.interrupted_run import write_interrupted_run
from tests.paths import FAUX

pytestmark = pytest.mark.slow  # signals real runs mid-way


def _children() -> dict[int, list[int]]:
    """Every process's children, from /proc."""
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _descendants(pid: int) -> set[int]:
    tree, found, stack = _children(), set(), [pid]
    while stack:
        for child in tree.get(stack.pop(), []):
            found.add(child)
            stack.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its parent's bookkeeping is left


@dataclass(frozen=True)
class Stopped:
    returncode: int
    stdout: str
    stderr: str
    spawned: set[int]  # the processes under the run when it was signalled


def _run_then_signal(
    *args: str | Path,
    cwd: Path,
    sent: signal.Signals,
    processes: int,
    before_signal: Callable[[], None] = lambda: None,
) -> Stopped:
    """Start `ctxconf run` with `args`, wait for `processes` processes under it, send `sent`."""
    run = subprocess.Popen(
        [sys.executable, "-m", "ctxconf", "run", *map(str, args)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_descendants(run.pid)) < processes:
            assert run.poll() is None and time.monotonic() < deadline, run.communicate()
            time.sleep(0.05)
        time.sleep(0.2)  # let the last of them get under way
        spawned = _descendants(run.pid)
        before_signal()
        run.send_signal(sent)
        stdout, stderr = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    return Stopped(run.returncode, stdout, stderr, spawned)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree in /proc")
@pytest.mark.parametrize("sent", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=str)
def test_a_signal_keeps_what_was_there_and_what_was_done(
    tmp_path: Path, sent: signal.Signals
) -> None:
    results = tmp_path / "r.json"
    ctxconf("run", "--impl", "reference", "-k", "stub", "--json", results, cwd=tmp_path)
    previous = results.read_bytes()

    def still_whole() -> None:
        assert results.read_bytes() == previous  # the run is under way: the old file is whole

    # hang.py hangs on the second case with a child of its own: wait for that grandchild.
    stopped = _run_then_signal(
        "--impl",
        f"cmd:{sys.executable} hang.py",
        "--json",
        results,
        "--junit",
        tmp_path / "junit.xml",
        "--timeout",
        "60",
        cwd=FAUX,
        sent=sent,
        processes=2,
        before_signal=still_whole,
    )
    stdout, stderr = stopped.stdout, stopped.stderr
    assert stopped.returncode == 130, stdout + stderr
    assert "Traceback" not in stderr, stderr
    done = load(results)
    assert done.footer.interrupted and done.footer.exit_code == 130
    assert [case.verdict for case in done.cases] == ["pass"]  # the first case; the second hung
    assert (tmp_path / "junit.xml").exists()
    assert "interrupted: 1 of " in stderr
    assert stdout.rstrip().split("\n")[-1].startswith("1 passed, 0 failed")
    assert not [pid for pid in stopped.spawned if _alive(pid)], "an implementation process was left"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junit.xml", "r.json"]


def test_ctxconf_report_loads_an_interrupted_run(tmp_path: Path) -> None:
    results = tmp_path / "r.json"
    write_interrupted_run(results, interrupted_at_seq=2)
    done = ctxconf("report", results, "--html", tmp_path / "r.html", expect=None)
    assert done.returncode in (0, 1), done
    assert os.path.exists(tmp_path / "r.html")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree in /proc")
def test_a_signal_before_hello_keeps_the_previous_results(tmp_path: Path) -> None:
    results = tmp_path / "r.json"
    results.write_text("previous", encoding="utf-8")
    silent = f"cmd:{sys.executable} -c 'import time; time.sleep(600)'"
    stopped = _run_then_signal(
        "--impl",
        silent,
        "--json",
        results,
        "--timeout",
        "60",
        cwd=tmp_path,
        sent=signal.SIGTERM,
        processes=1,
    )
    stdout, stderr = stopped.stdout, stopped.stderr
    assert stopped.returncode == 130, stdout + stderr
    assert "interrupted before any case ran" in stderr and "Traceback" not in stderr
    assert results.read_text(encoding="utf-8") == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]
    assert not [pid for pid in stopped.spawned if _alive(pid)]
