"""Fixtures every test module may take."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ctxconf.specdata.paths import bundled_spec_dir


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    """A copy of the bundled spec folder, free to edit."""
    copy = tmp_path / "spec"
    shutil.copytree(bundled_spec_dir(), copy)
    return copy
