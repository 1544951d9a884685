"""Fixtures every test module may take."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from ctxconf.specdata.paths import bundled_spec_dir

# Runs pytest inside a test (tests/commandline/test_pytest_plugin.py).
pytest_plugins = ["pytester"]

# The suite starts hundreds of `python -m ctxconf` processes. Where the environment turns
# bytecode off (PYTHONDONTWRITEBYTECODE, as some containers do), each of them would compile every
# module of the package again, about a third of its start; a bytecode cache of the suite's own,
# in the temporary folder, spares that and writes nothing into the tree.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
    os.environ.setdefault(
        "PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / f"ctxconf-pycache-{os.getuid()}")
    )


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: one worker more than the cores. Many tests wait on a process they started (a
    fake harness's timeout, a browser, a child's start), and the spare worker fills those waits:
    on 2 cores the suite took 6 min 10 s with three workers, 7 min 52 s with two and 6 min 37 s
    with four (bench/README.md, "The test suite")."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # the count asked for: pytest-xdist's own reading
    return len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else None


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    """A copy of the bundled spec folder, free to edit."""
    copy = tmp_path / "spec"
    shutil.copytree(bundled_spec_dir(), copy)
    return copy
