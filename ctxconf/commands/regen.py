"""`ctxconf regen [--check] [--accept-authors] [FILE…]`: expected texts from the reference, and
what changed."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ctxconf.errors import CtxconfError
from ctxconf.specdata import folder as spec_folder
from ctxconf.specdata.paths import is_installed_bundle
from ctxconf.specdata.reader import list_case_files, read_loop
from ctxconf.spectools.regen import CaseChange, RegenResult, regenerate
from ctxconf.terminal.textdiff import visible_diff
from ctxconf.userfiles.document import display, plural


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
    parser.add_argument(
        "--accept-authors",
        action="store_true",
        help="rewrite the authors' cases too (origin: authors) after a spec edit that changes "
        "them, and print each change for review",
    )
    spec_folder.add_spec_argument(parser)


def _label(change: CaseChange, *, check: bool) -> str:
    if not change.accepted:
        return "disagrees with the authors' case (kept; --accept-authors takes the new texts)"
    verb = "would change" if check else "changed"
    return f"authors' case {verb}: review it" if change.authors else verb


def print_result(result: RegenResult, *, check: bool) -> None:
    for change in result.changes:
        print(f"{display(change.file)}: {change.name}: {_label(change, check=check)}")
        for step in change.steps:
            print(f"  step {step.step}:")
            for line in visible_diff(step.old, step.new, names=("old", "new"))[2:]:
                print("    " + line)
    for error in result.errors:
        print(f"error: {error}")
    accepted = [c for c in result.changes if c.accepted]
    steps = sum(len(c.steps) for c in accepted)
    verb = "would change" if check else "changed"
    print(
        f"{plural(steps, 'expected text')} {verb} in {plural(len(accepted), 'case')}; "
        f"{plural(len(result.disagreements), 'disagreement')} with the authors' cases; "
        f"{plural(len(result.errors), 'error')}; "
        f"{plural(len(result.files_written), 'file')} written"
    )


def run(args: argparse.Namespace) -> int:
    try:
        folder = spec_folder.resolve_spec(args.spec)
        spec_folder.announce(folder, sys.stderr, given=args.spec)
        loop = read_loop(folder)  # a spec that does not validate is refused before any write
        files = args.files or list_case_files(folder)
        if not args.check:
            spec_folder.writable_spec(folder)
            for file in files:
                if is_installed_bundle(Path(os.path.realpath(file)).parent.parent):
                    spec_folder.writable_spec(Path(os.path.realpath(file)).parent.parent)
        result = regenerate(files, loop, check=args.check, accept_authors=args.accept_authors)
    except CtxconfError as error:  # a spec file refused, or one that cannot be written
        return spec_folder.report_error("regen", error, sys.stderr)
    print_result(result, check=args.check)
    if result.errors or result.disagreements:
        return 1
    return 1 if args.check and result.changes else 0
