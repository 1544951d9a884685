"""Atomic writes: a reader, or an interrupted run, sees the old file whole or the new one whole.

The one writer of files in place for the whole project (results, reports, JUnit, expected
failures, fuzz cases, regen, add-case, the probe's pages, the bench README). Its temporary file
is a dot-file ending in `.tmp` beside the target, so no pattern that finds data
(`conformance/*.json` without dot-files) ever takes it for data; it is removed on every way out,
and one left by a killed process is removed by the next write of the same file.

What it writes over is a regular file or nothing: a target that is a device, a FIFO, a socket or
a folder is refused (`/dev/null` replaced by a regular file would break every process on the
machine), and so is a folder it may not write in. A command checks its outputs with
`check_outputs` before its work starts, and every write checks again. A write that fails (no
space, no permission) is one `OutputError` naming the path; the previous file stays whole. A
symbolic link is written through: the file it names is replaced, the link kept.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from ctxconf.errors import CtxconfError
from ctxconf.userfiles.document import FILE_KINDS, display

TEMP_SUFFIX = ".tmp"
# A temporary file this old belongs to no write in progress: its writer was killed.
STALE_SECONDS = 60.0


class OutputError(CtxconfError):
    """A file ctxconf was asked to write that it will not or cannot write; the message names
    the path and why."""

    code = "output"
    default_hint = "give the path of a regular file, or of a new one, in a folder you may write"


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def check_folder(folder: Path, path: Path | None = None) -> None:
    """OutputError unless files can be made in `folder`, or in the nearest existing folder above
    it (the folders between are made on writing); `path`: the file meant, to name it."""
    path = folder if path is None else path
    existing = folder
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if not os.path.isdir(existing):
        raise OutputError(
            f"{display(path)}: cannot be written: {display(existing)} is not a folder"
        )
    if os.access(existing, os.W_OK | os.X_OK):
        return
    with contextlib.suppress(OSError):
        if os.statvfs(existing).f_flag & os.ST_RDONLY:
            raise OutputError(
                f"{display(path)}: cannot be written: {display(existing)} is on a read-only "
                "file system"
            )
    where = display(existing)
    raise OutputError(
        f"{display(path)}: cannot be written: no permission to make files in "
        + ("the current folder" if where == "." else where)
    )


def check_output(path: Path) -> Path:
    """The file a write of `path` replaces (a link followed), or OutputError when that is not a
    regular file, or a file that cannot be made there; nothing is written."""
    real = Path(os.path.realpath(path))
    try:
        info = os.stat(real)
    except FileNotFoundError:
        check_folder(real.parent, path)
        return real
    except OSError as error:  # a loop of links, a part of the path that is a file, no access
        raise OutputError(f"{display(path)}: cannot be written: {_reason(error)}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = FILE_KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
        raise OutputError(
            f"{display(path)}: is {kind}, not a regular file: ctxconf writes only regular "
            "files, and leaves it as it is",
            hint="give the path of a regular file, or of a new one",
        )
    check_folder(real.parent, path)
    return real


def check_outputs(
    outputs: Iterable[tuple[str, Path | None]], *, reads: Iterable[tuple[str, Path]] = ()
) -> None:
    """Check each output a command will write, named by its option (`--json`), before the
    command starts; OutputError too when two of them name one file, or one names a file in
    `reads` that the command reads and must not lose."""
    seen: dict[Path, str] = {Path(os.path.realpath(path)): what for what, path in reads}
    for option, path in outputs:
        if path is None:
            continue
        real = check_output(path)
        if real in seen:
            raise OutputError(
                f"{seen[real]} and {option} name one file, {display(path)}: "
                "one would overwrite the other",
                hint="give each output its own path",
            )
        seen[real] = option


def temp_prefix(path: Path) -> str:
    return f".{path.name}."


def _remove_stale(path: Path) -> None:
    prefix, now = temp_prefix(path), time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent):
            if not (entry.name.startswith(prefix) and entry.name.endswith(TEMP_SUFFIX)):
                continue
            with contextlib.suppress(OSError):
                if now - entry.stat(follow_symlinks=False).st_mtime > STALE_SECONDS:
                    os.unlink(entry.path)


def open_temp(path: Path) -> tuple[int, Path]:
    """A new temporary file beside `path`, named so nothing takes it for data: (fd, its path)."""
    fd, temp = tempfile.mkstemp(prefix=temp_prefix(path), suffix=TEMP_SUFFIX, dir=path.parent)
    return fd, Path(temp)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def move_into_place(temp: Path, path: Path) -> None:
    """Replace `path` with the finished `temp`: the old file's mode kept, or for a new file the
    mode any new file gets (mkstemp makes it private), then stale temporary files removed."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~_umask()
    os.chmod(temp, mode)
    os.replace(temp, path)
    _remove_stale(path)


class PendingFile:
    """A text file written piece by piece into a temporary file beside its target, then moved
    into place whole (`commit`) or dropped (`abandon`): until `commit` the target is as it was.

    Every failure to write is an OutputError naming the target, with the temporary file gone."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._real = check_output(self.path)
        self._temp: Path | None = None
        self._file: IO[str] | None = None
        try:
            self._real.parent.mkdir(parents=True, exist_ok=True)
            fd, self._temp = open_temp(self._real)
            self._file = os.fdopen(fd, "w", encoding="utf-8", newline="")
        except OSError as error:
            self._failed(error)

    def _failed(self, error: OSError) -> None:
        self.abandon()
        raise OutputError(
            f"{display(self.path)}: cannot be written: {_reason(error)}",
            hint="the file that was there, if any, is as it was",
        ) from None

    def write(self, text: str) -> None:
        if self._file is None:
            raise OutputError(f"{display(self.path)}: written after it was finished")
        try:
            self._file.write(text)
            self._file.flush()
        except OSError as error:
            self._failed(error)

    def commit(self) -> None:
        """Move the finished file into place."""
        if self._file is None or self._temp is None:
            raise OutputError(f"{display(self.path)}: finished twice")
        try:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None
            check_output(self.path)  # the target may have been replaced while this was written
            move_into_place(self._temp, self._real)
            self._temp = None
        except OSError as error:
            self._failed(error)
        except BaseException:
            self.abandon()
            raise

    def abandon(self) -> None:
        """Drop what was written; the target stays as it was."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        if self._temp is not None:
            with contextlib.suppress(OSError):
                self._temp.unlink(missing_ok=True)
            self._temp = None


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` as UTF-8 in one move; OutputError when it cannot be written."""
    pending = PendingFile(path)
    try:
        pending.write(text)
        pending.commit()
    except BaseException:
        pending.abandon()
        raise
