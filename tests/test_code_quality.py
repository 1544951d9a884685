"""The code passes its own linters: ruff, and mypy --strict over the package as it installs."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
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
    # mypy's incremental cache, kept between runs for this checkout (as a developer's
    # .mypy_cache is): it rechecks whatever changed, and the whole tree on the first run.
    checkout = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    cache = Path(tempfile.gettempdir()) / f"ctxconf-mypy-{os.getuid()}-{checkout}"
    done = subprocess.run(
        ["bash", str(ROOT / "tools" / "typecheck.sh"), "--cache-dir", str(cache)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
