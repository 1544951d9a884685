"""regen and add-case write case files through the one writer: a case file that cannot be
written is one message naming it, exit 2, before any file is changed, and no temporary file is
left behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import ctxconf


def _stale(spec: Path) -> Path:
    """Make regen want to rewrite conformance/context.json: one expected text made stale."""
    path = spec / "conformance" / "context.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    case = next(c for c in data["cases"] if c.get("origin") != "authors")
    case["expect"][0] = "stale"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_regen_in_a_read_only_folder_changes_nothing_and_says_so(spec: Path) -> None:
    _stale(spec)
    conformance = spec / "conformance"
    before = _files(conformance)
    conformance.chmod(0o555)
    try:
        done = ctxconf("regen", "--spec", spec, cwd=spec.parent, expect=2, unprivileged=True)
    finally:
        conformance.chmod(0o755)
    assert (
        "ctxconf regen: spec/conformance/context.json: cannot be written: no permission to make "
        "files in spec/conformance"
    ) in done.stderr, done
    assert _files(conformance) == before


def test_add_case_in_a_read_only_folder_changes_nothing_and_says_so(spec: Path) -> None:
    new = spec.parent / "new.yaml"
    new.write_text(
        "name: brand-new\ndescription: d\nrules: [ctx.stub.unchanged]\nsteps:\n"
        "  - {op: read, path: a, content: a}\n",
        encoding="utf-8",
    )
    conformance = spec / "conformance"
    before = _files(conformance)
    conformance.chmod(0o555)
    try:
        done = ctxconf("add-case", new, "--spec", spec, cwd=spec.parent, expect=2,
                       unprivileged=True)  # fmt: skip
    finally:
        conformance.chmod(0o755)
    assert "ctxconf add-case: spec/conformance/context.json: cannot be written: " in done.stderr
    assert _files(conformance) == before


@pytest.mark.slow  # regenerates every case
def test_regen_writes_through_a_linked_case_file(spec: Path, tmp_path: Path) -> None:
    stale = _stale(spec)
    elsewhere = tmp_path / "elsewhere.json"
    stale.rename(elsewhere)
    stale.symlink_to(elsewhere)
    ctxconf("regen", "--spec", spec, cwd=spec.parent)
    assert stale.is_symlink()
    assert "stale" not in elsewhere.read_text(encoding="utf-8")
