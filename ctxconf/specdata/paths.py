"""Where the bundled spec and schemas live, in a checkout and in an installed wheel alike."""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # the ctxconf package


def _data_dir(name: str) -> Path:
    # An installed wheel carries the folder inside the package; a checkout (or an editable
    # install) keeps it beside the package, at the top of the repository.
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"the bundled {name}/ folder is missing from {_PACKAGE}")


def bundled_spec_dir() -> Path:
    return _data_dir("spec")


def schemas_dir() -> Path:
    return _data_dir("schemas")


def is_installed_bundle(folder: Path) -> bool:
    """Whether `folder` is the spec inside an installed package (a wheel's copy, which a spec
    editor must never edit in place), not the spec of a checkout."""
    inside = _PACKAGE / "spec"
    # realpath, which a loop of links does not make raise, as Path.resolve does.
    return inside.is_dir() and os.path.realpath(folder) == os.path.realpath(inside)
