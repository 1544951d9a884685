"""`ctxconf regen [--check] [FILE…]`: expected texts from the reference, and what changed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.casefile import SpecFileError
from ctxconf.regen import RegenResult, regenerate
from ctxconf.specdir import SpecDirError, add_spec_argument, case_files, load_loop
from ctxconf.textdiff import visible_diff


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="case files (default: every case file of the spec)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when any expected text would change",
    )
    add_spec_argument(parser)


def print_result(result: RegenResult, *, check: bool) -> None:
    for change in result.changes:
        label = (
            "disagrees with the authors' case (never rewritten)"
            if change.authors
            else ("would change" if check else "changed")
        )
        print(f"{change.file}: {change.name}: {label}")
        for step in change.steps:
            print(f"  step {step.step}:")
            for line in visible_diff(step.old, step.new, names=("old", "new"))[2:]:
                print("    " + line)
    for error in result.errors:
        print(f"error: {error}")
    written = sum(1 for c in result.changes if not c.authors)
    steps = sum(len(c.steps) for c in result.changes if not c.authors)
    verb = "would change" if check else "changed"
    print(
        f"{steps} expected texts {verb} in {written} cases; "
        f"{len(result.disagreements)} disagreements with the authors' cases; "
        f"{len(result.errors)} errors; {len(result.files_written)} files written"
    )


def run(args: argparse.Namespace) -> int:
    try:
        loop = load_loop(args.spec)
        files = args.files or case_files(args.spec)
    except SpecDirError as error:
        print(f"ctxconf regen: {error}", file=sys.stderr)
        return 2
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        print(f"ctxconf regen: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        result = regenerate(files, loop, check=args.check)
    except SpecFileError as error:
        print(f"ctxconf regen: {error}", file=sys.stderr)
        return 2
    print_result(result, check=args.check)
    if result.errors or result.disagreements:
        return 1
    return 1 if args.check and result.changes else 0
