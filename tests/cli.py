"""Running `ctxconf` as a user does: a subprocess, its exit code and output kept for the message."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

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
    timeout: float = 120,
    importable: Sequence[Path] = (),
    unprivileged: bool = False,
) -> Done:
    """`python -m ctxconf ARGS` in `cwd`; `importable`: folders put first on PYTHONPATH, so that
    `--impl python:tests.…` finds a module of this checkout's; `unprivileged`: held to the
    files' modes even when the suite runs as root."""
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
    result = Done(done.returncode, done.stdout, done.stderr)
    if expect is not None:
        assert done.returncode == expect, str(result)
    assert "Traceback" not in done.stderr, str(result)
    return result


def _unprivileged() -> tuple[str, ...]:
    if os.geteuid() != 0:
        return ()
    if shutil.which(_WITHOUT_OVERRIDE[0]) is None:
        pytest.skip("root reads and writes whatever a file's mode says, and setpriv is missing")
    return _WITHOUT_OVERRIDE
