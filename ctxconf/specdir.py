"""The spec folder a command works on: the bundled one, or one given with `--spec DIR`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ctxconf.paths import bundled_spec_dir
from ctxconf.reference import ContextConfig, PrefixConfig


class SpecDirError(Exception):
    """The folder given is not laid out like `spec/` (no loop.json, or one that cannot be read)."""


def add_spec_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--spec",
        type=Path,
        default=None,
        metavar="DIR",
        help="a folder laid out like spec/ (default: the bundled spec)",
    )


def spec_dir(given: Path | None) -> Path:
    folder = bundled_spec_dir() if given is None else given
    if not (folder / "loop.json").is_file():
        raise SpecDirError(f"{folder} is not a spec folder: it has no loop.json")
    return folder


def load_config(given: Path | None) -> ContextConfig:
    path = spec_dir(given) / "loop.json"
    try:
        return ContextConfig.from_loop(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SpecDirError(
            f"{path}: cannot be read as loop.json ({error}); run ctxconf validate"
        ) from error


def load_loop(given: Path | None) -> dict[str, Any]:
    """The spec's loop.json, parsed, once every area's reference has read it without a fault."""
    path = spec_dir(given) / "loop.json"
    try:
        loop = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(loop, dict):
            raise TypeError("not a JSON object")
        ContextConfig.from_loop(loop)
        PrefixConfig.from_loop(loop)
    except (OSError, ValueError, KeyError, TypeError) as error:
        message = f"{path}: cannot be read as loop.json ({error}); run ctxconf validate"
        raise SpecDirError(message) from error
    return loop


def case_files(given: Path | None) -> list[Path]:
    return sorted((spec_dir(given) / "conformance").glob("*.json"))
