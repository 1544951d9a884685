"""Every package of the probe is listed for setuptools, so a built wheel carries all of it."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[2]


def test_every_probe_package_is_listed() -> None:
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    probe = ROOT / "ctxconf" / "probe"
    found = {
        ".".join(("ctxconf", "probe", *init.parent.relative_to(probe).parts))
        for init in probe.rglob("__init__.py")
    }
    assert found - listed == set(), "packages a wheel would leave out"
