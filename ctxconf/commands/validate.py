"""`ctxconf validate [FILE…] [--spec DIR]`: every problem in the spec files, one per line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.exitcodes import EXIT_FAILED as EXIT_INVALID
from ctxconf.exitcodes import EXIT_OK, EXIT_USAGE
from ctxconf.specdata.folder import announce, report_error, resolve_spec
from ctxconf.spectools.validate import UnusableInput, collect_files, spec_files, validate_files
from ctxconf.userfiles.document import SpecFileError, plural


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
        help="validate this spec folder (loop.json and conformance/*.json) instead "
        "(default: the spec of the checkout the current folder is in, else the bundled spec)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        if args.files:
            files = collect_files(args.files)
        else:
            folder = resolve_spec(args.spec)
            announce(folder, sys.stderr, given=args.spec)
            files = spec_files(folder)
        problems = validate_files(files)
    except SpecFileError as error:
        return report_error("validate", error, sys.stderr)
    except UnusableInput as error:
        print(f"ctxconf validate: {error}", file=sys.stderr)
        print(f"hint: {error.hint}", file=sys.stderr)
        return EXIT_USAGE
    for problem in problems:
        print(problem)
    if problems:
        with_problems = len({problem.file for problem in problems})
        print(f"{plural(len(problems), 'problem')} in {plural(with_problems, 'file')}")
        return EXIT_INVALID
    print(f"ok: {plural(len(files), 'file')} valid")
    return EXIT_OK
