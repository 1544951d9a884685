"""The bench README as every benchmark writes it: checked before the benchmark runs, so that a
README that cannot be written (a folder, a device, a read-only checkout) costs no run, and a
write that fails (no space) said in one line, the README as it was."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from ctxconf.userfiles.atomic import OutputError, check_output


def refused(path: Path) -> bool:
    """Whether `path` cannot be written (and why, on stderr)."""
    try:
        check_output(path)
    except OutputError as error:
        print(f"error: {error.describe()}", file=sys.stderr)
        return True
    return False


def written(write: Callable[[], None]) -> bool:
    """Whether `write` wrote the README (why not, on stderr)."""
    try:
        write()
    except OutputError as error:
        print(f"error: {error.describe()}", file=sys.stderr)
        return False
    return True
