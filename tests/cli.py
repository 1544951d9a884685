"""Running `ctxconf` as a user does, its exit code and output kept for the message.

`ctxconf` runs the command line inside the test's process (tests/inprocess.py), as a fresh
process would run it; `ctxconf_process` starts `python -m ctxconf`, for what only a process
shows: signals, crashes, dropped privileges, a timeout, the package a folder holds.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.inprocess import run_main

# Root reads and writes whatever a file's mode says; without these two capabilities it keeps
# to the modes as any user does, so a test of an unreadable or read-only folder means the same.
_WITHOUT_OVERRIDE = ("setpriv", "--bounding-set=-dac_override,-dac_read_search")


@dataclass(frozen=True)
class Done:
    returncode: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"exit {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


def ctxconf(
    *args: str | Path,
    cwd: Path | None = None,
    expect: int | None = 0,
    importable: Sequence[Path] = (),
    unprivileged: bool = False,
) -> Done:
    """`ctxconf ARGS` in `cwd`, in this process; `importable`: folders put first on the module
    path (and PYTHONPATH), so that `--impl python:tests.…` finds a module of this checkout's;
    `unprivileged`: held to the files' modes even when the suite runs as root, which only a
    process of its own can be (so then it is one)."""
    if unprivileged and os.geteuid() == 0:
        return ctxconf_process(*args, cwd=cwd, expect=expect, importable=importable,
                               unprivileged=True)  # fmt: skip
    ran = run_main([str(arg) for arg in args], cwd=cwd, pythonpath=importable)
    return _checked(Done(ran.returncode, ran.stdout, ran.stderr), expect)


def ctxconf_process(
    *args: str | Path,
    cwd: Path | None = None,
    expect: int | None = 0,
    timeout: float = 120,
    importable: Sequence[Path] = (),
    unprivileged: bool = False,
) -> Done:
    """`python -m ctxconf ARGS` in `cwd`; `importable`: folders put first on PYTHONPATH;
    `unprivileged`: held to the files' modes even when the suite runs as root."""
    env = None
    if importable:
        path = os.pathsep.join([*map(str, importable), os.environ.get("PYTHONPATH", "")])
        env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(
        [
            *(_unprivileged() if unprivileged else ()),
            sys.executable,
            "-m",
            "ctxconf",
            *map(str, args),
        ],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )
    return _checked(Done(done.returncode, done.stdout, done.stderr), expect)


def ctxconf_interrupted(
    *args: str | Path,
    ready: Callable[[], bool],
    cwd: Path | None = None,
    expect: int | None = 130,
    signum: int = signal.SIGINT,
    timeout: float = 120,
) -> Done:
    """`python -m ctxconf ARGS`, sent `signum` (Ctrl-C) once `ready()` holds: a file written, a
    request logged, so the signal lands where the test means, whatever the machine's speed.
    A process that ends before it is ready fails the test with its output."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ctxconf", *map(str, args)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + timeout
        while not ready():
            if process.poll() is not None or time.monotonic() > deadline:
                out, err = process.communicate(timeout=timeout)
                raise AssertionError(str(Done(process.returncode, out, err)))
            time.sleep(0.05)  # a poll of `ready`, not a wait for the signal's moment
        process.send_signal(signum)
        out, err = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return _checked(Done(process.returncode, out, err), expect)


def _checked(result: Done, expect: int | None) -> Done:
    if expect is not None:
        assert result.returncode == expect, str(result)
    assert "Traceback" not in result.stderr, str(result)
    return result


def _unprivileged() -> tuple[str, ...]:
    if os.geteuid() != 0:
        return ()
    if shutil.which(_WITHOUT_OVERRIDE[0]) is None:
        pytest.skip("root reads and writes whatever a file's mode says, and setpriv is missing")
    return _WITHOUT_OVERRIDE
