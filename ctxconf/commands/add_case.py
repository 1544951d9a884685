"""`ctxconf add-case FILE.yaml`: add cases written as YAML; the reference fills their texts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxconf.addcase import AddCaseError, add_cases
from ctxconf.casefile import SpecFileError
from ctxconf.specdir import SpecDirError, add_spec_argument, load_loop, spec_dir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "yaml",
        type=Path,
        metavar="FILE.yaml",
        help="a case (name, description, rules, limits?, steps) or a list of them",
    )
    parser.add_argument(
        "--to",
        type=Path,
        default=None,
        metavar="CASEFILE",
        help="the case file to add to (default: the spec's conformance/context.json)",
    )
    add_spec_argument(parser)


def run(args: argparse.Namespace) -> int:
    try:
        loop = load_loop(args.spec)
        target = args.to or spec_dir(args.spec) / "conformance" / "context.json"
    except SpecDirError as error:
        print(f"ctxconf add-case: {error}", file=sys.stderr)
        return 2
    for path in (args.yaml, target):
        if not path.is_file():
            print(f"ctxconf add-case: no such file: {path}", file=sys.stderr)
            return 2
    try:
        names = add_cases(args.yaml, target, loop)
    except AddCaseError as error:
        print(error, file=sys.stderr)
        return 1
    except SpecFileError as error:
        print(f"ctxconf add-case: {error}", file=sys.stderr)
        return 2
    print(f"added {len(names)} cases to {target}: {', '.join(names)}")
    return 0
