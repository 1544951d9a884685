"""A spec is read once per command, and the quick schema check agrees with the full one: on
whether a file is valid, and, for one that is not, on every problem the full check finds in the
cases it is given to read."""

from __future__ import annotations

import collections
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from ctxconf.cli import main
from ctxconf.runner.engine import RunOptions, run_suite
from ctxconf.specdata import problems, reader
from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.spectext.rules import markdown_files
from ctxconf.userfiles import document

SPEC = bundled_spec_dir()


def test_a_run_reads_each_spec_file_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    reads: collections.Counter[str] = collections.Counter()
    real = document.read_bytes

    def counting(path: Path, what: str = "file") -> bytes:
        reads[Path(path).name] += 1
        return real(path, what)

    monkeypatch.setattr(document, "read_bytes", counting)
    run_suite(RunOptions(impl="reference", spec_dir=SPEC), results_path=tmp_path / "r.json")
    files = ["loop.json", *(path.name for path in reader.list_case_files(SPEC))]
    assert dict(reads) == dict.fromkeys(files, 1)


def _broken(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Copies of a case file, each with one thing wrong."""
    wrong: list[dict[str, Any]] = []
    for change in (
        lambda d: d.pop("area"),
        lambda d: d["cases"][0].pop("steps"),
        lambda d: d["cases"][0]["steps"][0].update(op="no-such-op"),
        lambda d: d["cases"][0]["steps"][0].update(extra=1),
        lambda d: d["cases"][0].update(name="Not A Name"),
        lambda d: d["cases"][0].update(rules="x"),
        lambda d: d["cases"][-1]["steps"][-1].update(op=7),
        lambda d: d.update(extra=1) or d["cases"][1].update(description=""),
        lambda d: d.update(cases=[]),
        lambda d: d["cases"].append("not a case"),
    ):
        copied = copy.deepcopy(data)
        change(copied)
        wrong.append(copied)
    return wrong


@pytest.mark.slow
@pytest.mark.parametrize("path", reader.list_case_files(SPEC), ids=lambda p: p.name)
def test_the_quick_check_agrees_with_the_full_one(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    full = problems._validator(reader.CASES)
    # The whole file once, valid; each fault in a copy cut to the cases the faults touch (the
    # first two and the last): the full validator's time grows with the file, what it proves
    # does not.
    cut = {**data, "cases": [*data["cases"][:2], data["cases"][-1]]}
    for wrong in [data, *_broken(cut)]:
        everywhere = sorted(list(map(str, e.absolute_path)) for e in full.iter_errors(wrong))
        compiled = problems._compiled_errors(reader.CASES, wrong)
        assert (compiled == []) == (everywhere == [])
        found = problems._full_errors(wrong, full, compiled)
        assert sorted(list(map(str, path)) for _, path in found) == everywhere


@pytest.mark.slow
def test_check_reads_each_spec_file_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    reads: collections.Counter[str] = collections.Counter()
    real = document._read_bytes

    def counting(path: Path, what: str) -> bytes:
        reads[Path(path).name] += 1
        return real(path, what)

    monkeypatch.setattr(document, "_read_bytes", counting)
    assert main(["check", "--spec", str(SPEC)]) == 0
    assert "ctxconf check passed" in capsys.readouterr().out
    files = ["loop.json", *(p.name for p in reader.list_case_files(SPEC))]
    files += [p.name for p in markdown_files(SPEC)]
    assert dict(reads) == dict.fromkeys(files, 1)
