"""`ctxconf validate [FILE…] [--spec DIR]`: every problem in the spec files, one per line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.paths import bundled_spec_dir
from ctxconf.validate import UnusableInput, collect_files, spec_files, validate_files

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    given = parser.add_mutually_exclusive_group()
    given.add_argument(
        "files",
        nargs="*",
        type=Path,
        default=[],
        metavar="FILE",
        help="case files or loop.json files (a spec folder stands for its files); "
        "default: the bundled spec",
    )
    given.add_argument(
        "--spec",
        type=Path,
        metavar="DIR",
        help="validate this spec folder (loop.json and conformance/*.json) instead",
    )


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def run(args: argparse.Namespace) -> int:
    try:
        if args.files:
            files = collect_files(args.files)
        else:
            files = spec_files(args.spec if args.spec is not None else bundled_spec_dir())
        problems = validate_files(files)
    except UnusableInput as error:
        print(f"ctxconf validate: {error}", file=sys.stderr)
        print(f"hint: {error.hint}", file=sys.stderr)
        return EXIT_USAGE
    for problem in problems:
        print(problem)
    if problems:
        with_problems = len({problem.file for problem in problems})
        print(f"{_plural(len(problems), 'problem')} in {_plural(with_problems, 'file')}")
        return EXIT_INVALID
    print(f"ok: {_plural(len(files), 'file')} valid")
    return EXIT_OK
