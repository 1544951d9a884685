"""`ctxconf add-case FILE.yaml`: add cases written as YAML; the reference fills their texts."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ctxconf.errors import CtxconfError
from ctxconf.reference import AREAS
from ctxconf.specdata import folder as spec_folder
from ctxconf.specdata.paths import is_installed_bundle
from ctxconf.specdata.reader import check_case_folder, read_loop
from ctxconf.spectools.addcase import AddCaseError, add_cases, yaml_area
from ctxconf.userfiles.atomic import check_output
from ctxconf.userfiles.document import SpecFileError, display, plural
from ctxconf.userfiles.useryaml import load_user_yaml


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "yaml",
        type=Path,
        metavar="FILE.yaml",
        help="a case (name, description, rules, limits?, steps), a list of them, or a case file's "
        "shape (`area:` and `cases:`)",
    )
    parser.add_argument(
        "--to",
        type=Path,
        default=None,
        metavar="CASEFILE",
        help="the case file to add to (default: the spec's conformance/AREA.json for the "
        "`area:` the YAML names, else conformance/context.json)",
    )
    spec_folder.add_spec_argument(parser)


def _named_area(yaml_path: Path) -> str:
    """The area the YAML file names (`area:` beside `cases:`), else the first area; a file that
    cannot be read names none here: add_cases reports why."""
    try:
        named = yaml_area(load_user_yaml(yaml_path))
    except SpecFileError:
        named = None
    return named if named in AREAS else AREAS[0]


def run(args: argparse.Namespace) -> int:
    try:
        folder = spec_folder.resolve_spec(args.spec)
        spec_folder.announce(folder, sys.stderr, given=args.spec)
        loop = read_loop(folder)  # a spec that does not validate is refused before any write
        check_case_folder(folder)
        target = args.to or folder / "conformance" / f"{_named_area(args.yaml)}.json"
        spec_folder.writable_spec(folder)
        if is_installed_bundle(Path(os.path.realpath(target)).parent.parent):
            spec_folder.writable_spec(Path(os.path.realpath(target)).parent.parent)
        check_output(target)  # before the reference runs the cases
        names = add_cases(args.yaml, target, loop, folder)
    except AddCaseError as error:
        print(error, file=sys.stderr)
        return 1
    except CtxconfError as error:  # a spec file refused, or a case file that cannot be written
        return spec_folder.report_error("add-case", error, sys.stderr)
    print(f"added {plural(len(names), 'case')} to {display(target)}: {', '.join(names)}")
    return 0
