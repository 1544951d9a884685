"""Which spec folder a spec command works on: the checkout's, found from the current folder; the
one --spec names; else the bundled one. Each command names it first, on stderr."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ctxconf.specdata import paths
from ctxconf.specdata.folder import SpecDirError, discover, resolve_spec, writable_spec
from ctxconf.specdata.paths import bundled_spec_dir
from tests.cli import ctxconf


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A folder laid out like a checkout of the spec: spec/ with loop.json, and a subfolder."""
    root = tmp_path / "checkout"
    shutil.copytree(bundled_spec_dir(), root / "spec")
    (root / "docs" / "deep").mkdir(parents=True)
    return root


def _edit_loop(spec: Path) -> None:
    loop = spec / "loop.json"
    text = loop.read_text(encoding="utf-8")
    edited = text.replace('"Same result as {target}."', '"Same as {target}."', 1)
    assert edited != text
    loop.write_text(edited, encoding="utf-8")


def test_discovery_finds_the_spec_in_and_above_the_current_folder(checkout: Path) -> None:
    spec = checkout / "spec"
    assert discover(checkout) == spec.resolve()
    assert discover(checkout / "docs" / "deep") == spec.resolve()
    assert discover(spec) == spec.resolve()  # a folder holding loop.json is a spec folder
    assert discover(checkout.parent) is None


@pytest.mark.slow
@pytest.mark.parametrize(
    ("where", "how"),
    [
        ("", "found in the current folder"),
        ("spec", "found in the current folder"),
        ("docs/deep", "found above the current folder"),
    ],
    ids=["root", "spec", "below"],
)
def test_a_command_inside_a_checkout_uses_its_spec_and_says_so(
    checkout: Path, where: str, how: str
) -> None:
    _edit_loop(checkout / "spec")
    done = ctxconf("regen", "--check", cwd=checkout / where, expect=1)
    first = done.stderr.splitlines()[0]
    assert first == f"spec: {(checkout / 'spec').resolve()} ({how})"
    assert "would change" in done.stdout


@pytest.mark.slow
def test_spec_overrides_discovery(checkout: Path, tmp_path: Path) -> None:
    _edit_loop(checkout / "spec")
    other = tmp_path / "other"
    shutil.copytree(bundled_spec_dir(), other)
    done = ctxconf("regen", "--check", "--spec", other, cwd=checkout)
    assert done.stderr.splitlines()[0] == f"spec: {other.resolve()} (given with --spec)"


@pytest.mark.slow
def test_outside_any_checkout_the_bundled_spec_is_used(tmp_path: Path) -> None:
    done = ctxconf("validate", cwd=tmp_path)
    assert done.stderr.splitlines()[0] == f"spec: {bundled_spec_dir().resolve()} (bundled)"


@pytest.mark.slow
@pytest.mark.parametrize(
    "command", [["validate"], ["lint"], ["check"], ["regen", "--check"], ["show", "x"]]
)
def test_every_spec_command_names_its_spec_folder_first(checkout: Path, command: list[str]) -> None:
    done = ctxconf(*command, cwd=checkout, expect=None)
    assert done.stderr.startswith(f"spec: {(checkout / 'spec').resolve()} ("), str(done)


def test_a_spec_argument_that_is_no_spec_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SpecDirError, match=r"no loop\.json"):
        resolve_spec(tmp_path)
    with pytest.raises(SpecDirError, match="no such folder"):
        resolve_spec(tmp_path / "missing")


def test_the_bundled_spec_of_an_installed_package_is_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert writable_spec(bundled_spec_dir()) == bundled_spec_dir()  # a checkout's: writable
    package = tmp_path / "site-packages" / "ctxconf"
    shutil.copytree(bundled_spec_dir(), package / "spec")
    monkeypatch.setattr(paths, "_PACKAGE", package)
    with pytest.raises(SpecDirError, match="installed with ctxconf") as refused:
        writable_spec(package / "spec")
    assert "--spec" in refused.value.hint
