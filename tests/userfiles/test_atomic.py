"""The one writer: what it refuses to write over, what it does when a write fails, and that it
never leaves a temporary file or loses the previous file.

Devices are made with mknod inside tmp_path (the machine's /dev/null and /dev/full are never
touched); a full disk is played by making the write fail with ENOSPC."""

from __future__ import annotations

import errno
import os
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ctxconf.userfiles import atomic
from ctxconf.userfiles.atomic import (
    OutputError,
    PendingFile,
    check_folder,
    check_output,
    check_outputs,
    write_text_atomic,
)


def _folder(path: Path) -> None:
    path.mkdir()


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))


def _device(path: Path) -> None:
    """A character device with /dev/null's numbers, made here: writing to it would reach the
    kernel's null device, replacing it would leave a regular file."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device needs CAP_MKNOD")


def _link_to_fifo(path: Path) -> None:
    os.mkfifo(path.with_name("fifo"))
    path.symlink_to(path.with_name("fifo"))


KINDS: dict[str, tuple[Callable[[Path], None], str]] = {
    "folder": (_folder, "is a folder"),
    "FIFO": (_fifo, "is a FIFO"),
    "socket": (_socket, "is a socket"),
    "device": (_device, "is a character device"),
    "link to a FIFO": (_link_to_fifo, "is a FIFO"),
}


def _temporary_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(atomic.TEMP_SUFFIX))


@pytest.fixture
def inside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)  # messages name paths relative to the working folder
    yield tmp_path


@pytest.mark.parametrize("kind", list(KINDS), ids=list(KINDS))
def test_a_target_that_is_not_a_regular_file_is_refused_and_left_as_it_is(
    inside: Path, kind: str
) -> None:
    make, said = KINDS[kind]
    target = inside / "out.json"
    make(target)
    before = os.stat(target)
    with pytest.raises(OutputError) as checked:
        check_output(target)
    assert checked.value.message.startswith(f"out.json: {said}, not a regular file")
    with pytest.raises(OutputError) as written:
        write_text_atomic(target, "{}\n")
    assert written.value.message == checked.value.message
    after = os.stat(target)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode)
    assert after.st_ino == before.st_ino
    assert _temporary_files(inside) == []


def test_a_link_to_a_regular_file_is_written_through_and_kept(inside: Path) -> None:
    real = inside / "real.json"
    real.write_text("old\n", encoding="utf-8")
    link = inside / "link.json"
    link.symlink_to(real)
    write_text_atomic(link, "new\n")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new\n"


def test_a_loop_of_links_is_refused_with_its_reason(inside: Path) -> None:
    (inside / "a").symlink_to(inside / "b")
    (inside / "b").symlink_to(inside / "a")
    with pytest.raises(OutputError, match=r"^a: cannot be written: Too many levels of symbolic"):
        check_output(inside / "a")


def test_a_path_through_a_file_is_refused(inside: Path) -> None:
    (inside / "file").write_text("", encoding="utf-8")
    with pytest.raises(OutputError, match=r"^file/out\.json: cannot be written: "):
        check_output(inside / "file" / "out.json")


def test_a_new_file_in_new_folders_is_allowed_and_written(inside: Path) -> None:
    target = inside / "reports" / "deep" / "r.json"
    assert check_output(target) == target.resolve()
    write_text_atomic(target, "x")
    assert target.read_text(encoding="utf-8") == "x"


@pytest.mark.parametrize(
    "second",
    [lambda d: d / "r.json", lambda d: d / "sub" / ".." / "r.json", lambda d: d / "link.json"],
    ids=["same path", "another spelling", "a link to it"],
)
def test_two_outputs_naming_one_file_are_refused(
    inside: Path, second: Callable[[Path], Path]
) -> None:
    (inside / "sub").mkdir()
    (inside / "link.json").symlink_to(inside / "r.json")
    with pytest.raises(OutputError) as refused:
        check_outputs([("--json", inside / "r.json"), ("--html", second(inside))])
    assert refused.value.message.startswith("--json and --html name one file, ")
    assert not (inside / "r.json").exists()


def test_an_output_naming_a_file_read_is_refused(inside: Path) -> None:
    (inside / "r.json").write_text("{}", encoding="utf-8")
    with pytest.raises(OutputError, match=r"^RESULTS\.json and --html name one file, r\.json"):
        check_outputs([("--html", inside / "r.json")], reads=[("RESULTS.json", Path("r.json"))])
    check_outputs([("--html", inside / "r.html")], reads=[("RESULTS.json", Path("r.json"))])


def _no_space(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("where", ["fsync", "replace", "mkstemp"])
def test_a_write_that_fails_keeps_the_previous_file_and_leaves_no_temporary_file(
    inside: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    target = inside / "r.json"
    target.write_text("previous\n", encoding="utf-8")
    owner = atomic.tempfile if where == "mkstemp" else atomic.os
    monkeypatch.setattr(owner, where, _no_space)
    with pytest.raises(OutputError) as failed:
        write_text_atomic(target, "next\n")
    monkeypatch.undo()
    assert failed.value.message == "r.json: cannot be written: No space left on device"
    assert target.read_text(encoding="utf-8") == "previous\n"
    assert _temporary_files(inside) == []


class _FullDisk:
    """A file object whose writes fail as on a full disk once `room` characters are in."""

    def __init__(self, real: object, room: int) -> None:
        self._real = real
        self._room = room

    def write(self, text: str) -> int:
        self._room -= len(text)
        if self._room < 0:
            _no_space()
        return len(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)


def test_a_file_written_piece_by_piece_is_dropped_whole_when_the_disk_fills(
    inside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = inside / "results.json"
    target.write_text("previous\n", encoding="utf-8")
    real_fdopen = os.fdopen
    monkeypatch.setattr(atomic.os, "fdopen", lambda *a, **k: _FullDisk(real_fdopen(*a, **k), 10))
    pending = PendingFile(target)
    pending.write("12345")
    with pytest.raises(OutputError, match=r"^results\.json: cannot be written: No space left"):
        pending.write("6789012345")
    assert target.read_text(encoding="utf-8") == "previous\n"
    assert _temporary_files(inside) == []


def test_a_folder_that_does_not_let_files_be_made_is_refused(
    inside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Root may write anywhere its mode says not to, so the answer of access(2) is played; the
    # command-line tests hold the same on a real read-only folder.
    monkeypatch.setattr(atomic.os, "access", lambda path, mode: False)
    with pytest.raises(OutputError) as refused:
        check_output(inside / "reports" / "r.json")
    assert refused.value.message == (
        "reports/r.json: cannot be written: no permission to make files in the current folder"
    )
    with pytest.raises(OutputError, match=r"^out: cannot be written: no permission"):
        check_folder(inside / "out")
    assert not (inside / "reports").exists()
