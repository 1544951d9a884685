"""What `ctxconf run` and `ctxconf report` write over: a device, a FIFO, a socket or a folder is
refused before the run starts and left as it was; two outputs naming one file are refused; a
folder that cannot be written in and a disk that fills are one message naming the path, exit 2,
the previous file whole and no temporary file left.

Devices are made with mknod in tmp_path; the machine's own are never named. A full disk is a
small tmpfs where one can be mounted, and a write made to fail with ENOSPC everywhere."""

from __future__ import annotations

import errno
import io
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ctxconf.runner.command import RunRequest, execute
from ctxconf.runner.engine import RunOptions
from ctxconf.runner.results import load
from ctxconf.userfiles import atomic
from tests.cli import ctxconf

FEW = ["-k", "stub.unchanged"]  # a few cases: these tests are about the files, not the cases


def _device(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # /dev/null's numbers
    except PermissionError:
        pytest.skip("making a device needs CAP_MKNOD")


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))


KINDS: dict[str, tuple[Callable[[Path], None], str]] = {
    "device": (_device, "a character device"),
    "FIFO": (os.mkfifo, "a FIFO"),
    "socket": (_socket, "a socket"),
    "folder": (Path.mkdir, "a folder"),
}
OPTIONS = ["--json", "--html", "--junit", "--write-expected-failures"]


def _kind(path: Path) -> tuple[int, int]:
    info = os.lstat(path)
    return stat.S_IFMT(info.st_mode), info.st_ino


def _temporary_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(atomic.TEMP_SUFFIX)]


@pytest.mark.slow  # four runs of ctxconf each
@pytest.mark.parametrize("option", OPTIONS)
def test_an_output_that_is_not_a_regular_file_is_refused_before_the_run(
    tmp_path: Path, option: str
) -> None:
    for kind, (make, said) in KINDS.items():
        target = tmp_path / f"out-{kind}"
        make(target)
        before = _kind(target)
        done = ctxconf("run", "--impl", "reference", *FEW, option, target.name,
                       cwd=tmp_path, expect=2)  # fmt: skip
        assert f"ctxconf run: out-{kind}: is {said}, not a regular file" in done.stderr, done
        assert "spec:" not in done.stderr and "passed" not in done.stdout  # no run started
        assert _kind(target) == before
    assert _temporary_files(tmp_path) == []


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (["--json", "same"], ["--html", "same"]),
        (["--junit", "x"], ["--write-expected-failures", "./x"]),
    ],
    ids=["json-html", "junit-expected-failures"],
)
def test_two_outputs_naming_one_file_are_refused(
    tmp_path: Path, first: list[str], second: list[str]
) -> None:
    done = ctxconf("run", "--impl", "reference", *FEW, *first, *second, cwd=tmp_path, expect=2)
    assert f"ctxconf run: {first[0]} and {second[0]} name one file" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_read_only_working_folder_is_refused_before_the_run(tmp_path: Path) -> None:
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    done = ctxconf("run", "--impl", "reference", *FEW, cwd=folder, expect=2, unprivileged=True)
    assert (
        "ctxconf run: reports/results.json: cannot be written: no permission to make files in "
        "the current folder"
    ) in done.stderr, done
    assert "passed" not in done.stdout and list(folder.iterdir()) == []


@pytest.fixture(params=[0, 8192], ids=["full", "fills-mid-run"])
def full_disk(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Path, int]]:
    """A 64 KiB tmpfs holding a previous results file and a filler that leaves no room, or room
    for the first few cases of a run."""
    mount = tmp_path / "disk"
    mount.mkdir()
    try:
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
            check=True,
            capture_output=True,
        )
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"cannot mount a tmpfs here: {error}")
    try:
        (mount / "results.json").write_text("previous\n", encoding="utf-8")
        with (mount / "filler").open("wb", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError as error:
                assert error.errno == errno.ENOSPC
        os.truncate(mount / "filler", max(0, os.path.getsize(mount / "filler") - request.param))
        yield mount, request.param
    finally:
        subprocess.run(["umount", str(mount)], check=False, capture_output=True)


@pytest.mark.slow  # mounts a tmpfs and runs every case
def test_a_full_disk_is_one_message_and_the_previous_file_stays(
    tmp_path: Path, full_disk: tuple[Path, int]
) -> None:
    disk, room = full_disk
    done = ctxconf("run", "--impl", "reference", "-q", "--json", disk / "results.json",
                   "--junit", "j.xml", cwd=tmp_path, expect=2)  # fmt: skip
    assert "ctxconf run: disk/results.json: cannot be written: No space left on device" in (
        done.stderr
    )
    assert (disk / "results.json").read_text(encoding="utf-8") == "previous\n"
    assert _temporary_files(disk) == []
    if room:
        # The run went on: its outcome is shown and the other outputs are written.
        assert " passed, 0 failed" in done.stdout
        assert (tmp_path / "j.xml").is_file()
    else:  # a results file that cannot even start stops the run before its first case
        assert done.stdout == "" and not (tmp_path / "j.xml").exists()


def _no_space(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("failing", ["results", "report"])
def test_a_write_that_fails_mid_run_keeps_the_previous_file_and_shows_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.json").write_text("previous results\n", encoding="utf-8")
    (tmp_path / "r.html").write_text("previous page\n", encoding="utf-8")
    real_write = atomic.PendingFile.write
    name = "r.json" if failing == "results" else "r.html"
    writes = 0

    def write(self: atomic.PendingFile, text: str) -> None:
        nonlocal writes
        if self.path.name == name:
            writes += 1
            if writes == (3 if failing == "results" else 1):  # results: 2 lines in, then full
                monkeypatch.setattr(self, "_file", _Full(self._file))
        real_write(self, text)

    monkeypatch.setattr(atomic.PendingFile, "write", write)
    request = RunRequest(
        RunOptions(impl="reference", k="stub.unchanged"),
        json=tmp_path / "r.json",
        html=tmp_path / "r.html",
    )
    out, err = io.StringIO(), io.StringIO()
    assert execute(request, stdout=out, stderr=err) == 2
    assert f"ctxconf run: {name}: cannot be written: No space left on device" in err.getvalue()
    assert " passed, 0 failed" in out.getvalue()
    kept = {"results": ("r.json", "previous results\n"), "report": ("r.html", "previous page\n")}
    file, text = kept[failing]
    assert (tmp_path / file).read_text(encoding="utf-8") == text
    if failing == "report":
        assert load(tmp_path / "r.json").cases  # the results file is written all the same
    assert _temporary_files(tmp_path) == []


class _Full:
    """A file whose every write fails as on a full disk."""

    def __init__(self, real: object) -> None:
        self._real = real

    def write(self, text: str) -> int:
        _no_space()
        return 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)


# -- ctxconf report ------------------------------------------------------------------------


@pytest.fixture
def results(tmp_path: Path) -> Path:
    ctxconf("run", "--impl", "reference", *FEW, "--json", "r.json", cwd=tmp_path)
    return tmp_path / "r.json"


def test_report_refuses_a_page_that_is_not_a_regular_file(tmp_path: Path, results: Path) -> None:
    os.mkfifo(tmp_path / "page.html")
    done = ctxconf("report", results, "--html", "page.html", cwd=tmp_path, expect=2)
    assert "ctxconf report: page.html: is a FIFO, not a regular file" in done.stderr
    assert stat.S_ISFIFO(os.lstat(tmp_path / "page.html").st_mode)


def test_report_refuses_a_page_over_the_results_it_reads(tmp_path: Path, results: Path) -> None:
    before = results.read_bytes()
    done = ctxconf("report", "r.json", "--html", "r.json", cwd=tmp_path, expect=2)
    assert "ctxconf report: RESULTS.json and --html name one file, r.json" in done.stderr
    assert results.read_bytes() == before


def test_report_in_a_read_only_folder_is_one_message(tmp_path: Path, results: Path) -> None:
    tmp_path.chmod(0o555)
    try:
        done = ctxconf("report", "r.json", cwd=tmp_path, expect=2, unprivileged=True)
    finally:
        tmp_path.chmod(0o755)
    assert "ctxconf report: r.html: cannot be written: no permission to make files in" in (
        done.stderr
    )


@pytest.mark.slow  # a run through a child process, and a report
def test_paths_and_a_command_that_are_not_utf8_are_written_escaped(tmp_path: Path) -> None:
    latin1 = os.fsdecode(b"r\xe9")  # bytes a file name may hold that are not UTF-8
    impl = f"cmd:env X={latin1} {sys.executable} -m ctxconf serve --stdio"
    done = ctxconf("run", "--impl", impl, *FEW, "--json", f"{latin1}.json", "--html",
                   f"{latin1}.html", cwd=tmp_path)  # fmt: skip
    assert "wrote r\\xe9.json, r\\xe9.html" in done.stderr
    results = load(tmp_path / f"{latin1}.json")
    assert results.header.impl.startswith("cmd:env X=r\\xe9 ")
    reported = ctxconf("report", f"{latin1}.json", cwd=tmp_path)
    assert reported.stdout == "wrote r\\xe9.html\n"
