"""Which files an audit reads: every file below a folder, each once, whatever links and
unreadable folders lie on the way; each given file's source from its first bytes or named."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxconf.audit.readers import Reader
from ctxconf.audit.record import Problem
from ctxconf.audit.scan import default_paths, find_files

from .fake_reader import FAKE


def _found(paths: list[Path], forced: Reader | None = None) -> tuple[list[Path], list[Problem]]:
    problems: list[Problem] = []
    files = [f.path for f in find_files(paths, problems.append, [FAKE], forced)]
    return files, problems


def _record(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"read": 0}) + "\n")
    return path


def test_a_loop_of_links_is_walked_once(tmp_path: Path) -> None:
    one = _record(tmp_path / "a" / "one.fake")
    (tmp_path / "a" / "back").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "again").symlink_to(tmp_path / "a", target_is_directory=True)
    files, problems = _found([tmp_path])
    assert files == [one] and problems == []


def test_an_unreadable_folder_is_one_problem_and_the_rest_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = _record(tmp_path / "a" / "one.fake")
    _record(tmp_path / "locked" / "two.fake")
    # Refused as a folder without the read bit is refused (root reads through mode bits).
    real = os.scandir

    def scandir(path: str | os.PathLike[str]) -> Iterator[os.DirEntry[str]]:
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    files, problems = _found([tmp_path])
    assert files == [kept]
    assert [(p.place.file, p.message) for p in problems] == [
        (tmp_path / "locked", "could not be listed: Permission denied")
    ]


def test_a_file_no_reader_knows_is_quiet_in_a_folder_and_a_problem_when_named(
    tmp_path: Path,
) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    assert _found([tmp_path]) == ([], [])
    files, problems = _found([other])
    assert files == []
    assert [str(p) for p in problems] == [f"{other}: not a session record any reader knows (fake)"]


def test_a_named_source_reads_a_named_file_whatever_its_name(tmp_path: Path) -> None:
    other = _record(tmp_path / "export.jsonl")
    files, problems = _found([other], forced=FAKE)
    assert files == [other] and problems == []


def test_the_same_file_by_two_ways_is_read_once(tmp_path: Path) -> None:
    one = _record(tmp_path / "one.fake")
    files, _ = _found([tmp_path, one, tmp_path / "." / "one.fake"])
    assert files == [one]


def test_the_default_places_are_those_that_exist(tmp_path: Path) -> None:
    assert default_paths(tmp_path, [FAKE]) == []
    (tmp_path / "fake").mkdir()
    assert default_paths(tmp_path, [FAKE]) == [tmp_path / "fake"]
