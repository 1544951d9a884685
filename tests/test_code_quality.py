"""The code passes its own linters: ruff, and mypy --strict over the package as it installs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.slow  # runs ruff and mypy over the whole tree


def test_ruff_finds_nothing() -> None:
    pytest.importorskip("ruff", reason="ruff comes with the test extras")
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", str(ROOT)], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_finds_nothing() -> None:
    pytest.importorskip("mypy", reason="mypy comes with the test extras")
    if shutil.which("bash") is None:
        pytest.skip("tools/typecheck.sh needs bash")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", str(ROOT / "tools" / "typecheck.sh")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
