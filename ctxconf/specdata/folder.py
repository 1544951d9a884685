"""The spec folder a command works on, and saying which it is.

A spec editor works in a checkout: inside a folder that holds a spec (a `spec/loop.json` in the
current folder or one above it, or a `loop.json` in the current folder itself) the spec commands
use that spec; `--spec DIR` chooses another; elsewhere they use the spec bundled with ctxconf.
Every spec command first names the folder on stderr, so an edit never goes unseen because the
command read another copy. Nothing is ever written into an installed package's bundled spec.
"""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path
from typing import Any, TextIO

from ctxconf.errors import CtxconfError
from ctxconf.specdata.paths import bundled_spec_dir, is_installed_bundle
from ctxconf.specdata.reader import list_case_files, read_loop
from ctxconf.userfiles.document import SpecFileError, display, printable


class SpecDirError(SpecFileError):
    """The folder given is not a spec folder, or one that must not be written."""

    code = "spec-dir"
    default_hint = "give a folder laid out like spec/: loop.json and conformance/*.json"

    def __init__(self, folder: str | Path, reason: str, *, hint: str | None = None) -> None:
        super().__init__(folder, reason, usable=False)
        if hint is not None:
            self.args = (self.args[0], hint)


def add_spec_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--spec",
        type=Path,
        default=None,
        metavar="DIR",
        help="a folder laid out like spec/ (default: the spec of the checkout the current "
        "folder is in, else the bundled spec)",
    )


def _holds_spec(folder: Path) -> bool:
    # Whatever loop.json is (a FIFO, a folder, a dangling link), reading it says what is wrong.
    return os.path.lexists(folder / "loop.json")


def discover(start: Path | None = None) -> Path | None:
    """The spec folder of the checkout `start` (default: the current folder) is in, if any."""
    try:
        here = (start or Path.cwd()).resolve()
    except OSError:  # the current folder was removed
        return None
    if _holds_spec(here):
        return here
    for folder in (here, *here.parents):
        if _holds_spec(folder / "spec"):
            return folder / "spec"
    return None


def resolve_spec(given: Path | None) -> Path:
    """The spec folder to work on: `given` (--spec), else the one found from the current folder,
    else the bundled one; SpecDirError when `given` is no spec folder."""
    if given is None:
        return discover() or bundled_spec_dir()
    problem = _not_a_spec_folder(given)
    if problem is not None:
        raise SpecDirError(display(given), problem)
    return given


def _not_a_spec_folder(given: Path) -> str | None:
    """Why `given` is no spec folder to read (None when it is one): missing, not a folder, a
    loop of links, or a folder that cannot be looked into."""
    try:
        info = os.stat(given)
    except FileNotFoundError:
        return "a symbolic link to a missing folder" if os.path.islink(given) else "no such folder"
    except OSError as error:
        return f"cannot be read: {error.strerror or error}"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a folder"
    try:
        os.lstat(given / "loop.json")
    except FileNotFoundError:
        return "is not a spec folder: it has no loop.json"
    except OSError as error:  # a folder it may not look into
        return f"cannot be read: {error.strerror or error}"
    return None


def origin(folder: Path, given: Path | None = None) -> str:
    """How `folder` came to be chosen, as `announce` says it (`given`: the --spec argument)."""
    if given is not None:
        return "given with --spec"
    resolved = folder.resolve()
    found = discover()
    if found is not None and found.resolve() == resolved:
        here = Path.cwd().resolve()  # discover() found a spec, so there is a current folder
        inside = resolved in (here, here / "spec")
        return "found in the current folder" if inside else "found above the current folder"
    if resolved == bundled_spec_dir().resolve():
        return "bundled"
    return "given with --spec"


def announce(folder: Path, stream: TextIO, *, given: Path | None = None) -> None:
    """One line naming the spec folder a command works on, and how it was chosen."""
    shown = printable(os.path.realpath(folder))
    print(f"spec: {shown} ({origin(folder, given)})", file=stream, flush=True)


def writable_spec(folder: Path) -> Path:
    """`folder`, unless it is the bundled spec of an installed package (never written)."""
    if is_installed_bundle(folder):
        raise SpecDirError(
            display(folder),
            "is the spec installed with ctxconf, which is never written",
            hint="work on a copy: clone the spec's repository and run from inside it, "
            "or pass --spec DIR",
        )
    return folder


def report_error(command: str, error: CtxconfError, stream: TextIO) -> int:
    """Say why a spec command cannot work on its input, as every spec command says it; exit 2."""
    print(f"ctxconf {command}: {error.message}", file=stream)
    if error.hint:
        print(f"hint: {error.hint}", file=stream)
    return 2


def spec_dir(given: Path | None) -> Path:
    return resolve_spec(given)


def load_loop(given: Path | None) -> dict[str, Any]:
    """The spec's loop.json, valid by its schema and readable by every area's reference."""
    return read_loop(resolve_spec(given))


def case_files(given: Path | None) -> list[Path]:
    return list_case_files(resolve_spec(given))
