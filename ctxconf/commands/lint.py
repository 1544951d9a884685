"""`ctxconf lint`: the spec text, its data and its cases agree with each other."""

from __future__ import annotations

import argparse
import sys

from ctxconf.specdata.folder import add_spec_argument, announce, report_error, resolve_spec
from ctxconf.spectools.lint import lint_spec
from ctxconf.userfiles.document import SpecFileError, plural


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_spec_argument(parser)


def run(args: argparse.Namespace) -> int:
    try:
        folder = resolve_spec(args.spec)
        announce(folder, sys.stderr, given=args.spec)
        findings = lint_spec(folder)
    except SpecFileError as error:
        return report_error("lint", error, sys.stderr)
    for finding in findings:
        print(finding)
    print(plural(len(findings), "finding") if findings else f"ok: {folder} agrees with itself")
    return 1 if findings else 0
