"""Which files an audit reads and which reader reads each: the paths given (files or folders,
walked without following a link into a folder it has already seen), or every reader's default
places under the home folder; each file's source found from its first bytes, or named.

Nothing met on the way stops the scan: an unreadable folder, a loop of links, a file no reader
claims inside a folder (passed over quietly: folders hold other things) or given by name (a
problem: the person asked for it)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .readers.base import HEAD_BYTES, Reader
from .readers.registry import READERS
from .record import Place, Problem, Problems


@dataclass(frozen=True)
class Found:
    path: Path
    reader: Reader


def default_paths(home: Path, readers: Sequence[Reader] = READERS) -> list[Path]:
    """Every reader's places under `home` that exist."""
    seen: dict[Path, None] = {}
    for reader in readers:
        for place in reader.places(home):
            if place.exists():
                seen.setdefault(place, None)
    return list(seen)


def _head(path: Path, problems: Problems) -> bytes | None:
    try:
        with path.open("rb") as file:
            return file.read(HEAD_BYTES)
    except OSError as e:
        problems(Problem(Place(path), f"could not be read: {e.strerror or e}"))
        return None


def _claimant(path: Path, head: bytes, readers: Sequence[Reader]) -> Reader | None:
    return next((reader for reader in readers if reader.claims(path, head)), None)


def _walk(folder: Path, problems: Problems, seen: set[tuple[int, int]]) -> Iterator[Path]:
    """The files below `folder`, each folder entered once (a link back up is passed over)."""

    def refused(error: OSError) -> None:
        where = Path(error.filename) if error.filename else folder
        problems(Problem(Place(where), f"could not be listed: {error.strerror or error}"))

    for root, folders, files in os.walk(folder, onerror=refused, followlinks=True):
        try:
            info = os.stat(root)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) in seen:
            folders[:] = []  # a link into a folder already walked: a loop, or a second way in
            continue
        seen.add((info.st_dev, info.st_ino))
        folders.sort()
        for name in sorted(files):
            yield Path(root) / name


def find_files(
    paths: Sequence[Path],
    problems: Problems,
    readers: Sequence[Reader] = READERS,
    forced: Reader | None = None,
) -> Iterator[Found]:
    """The files to read, in a stable order, each with its reader. With `forced` (a source the
    person named), a file given by name is read as that source whatever its first bytes say;
    inside a folder, only the files that source claims are."""
    seen_folders: set[tuple[int, int]] = set()
    seen_files: set[tuple[int, int]] = set()
    for given in paths:
        if not given.exists():
            problems(Problem(Place(given), "no such file or folder"))
            continue
        named = not given.is_dir()
        for path in [given] if named else _walk(given, problems, seen_folders):
            try:
                info = path.stat()
            except OSError as e:
                problems(Problem(Place(path), f"could not be read: {e.strerror or e}"))
                continue
            if (info.st_dev, info.st_ino) in seen_files or not path.is_file():
                continue
            seen_files.add((info.st_dev, info.st_ino))
            head = _head(path, problems)
            if head is None:
                continue
            reader = forced if forced is not None and named else _claimant(path, head, readers)
            if reader is not None:
                yield Found(path, reader)
            elif named:
                names = ", ".join(r.name for r in readers)
                problems(Problem(Place(path), f"not a session record any reader knows ({names})"))
