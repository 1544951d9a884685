"""`ctxconf lint`: the spec text, its data and its cases agree with each other."""

from __future__ import annotations

import argparse
import sys

from ctxconf.casefile import SpecFileError
from ctxconf.lint import lint_spec
from ctxconf.specdir import SpecDirError, add_spec_argument, spec_dir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_spec_argument(parser)


def run(args: argparse.Namespace) -> int:
    try:
        folder = spec_dir(args.spec)
        findings = lint_spec(folder)
    except SpecDirError as error:
        print(f"ctxconf lint: {error}", file=sys.stderr)
        return 2
    except SpecFileError as error:
        print(f"ctxconf lint: {error}", file=sys.stderr)
        return 2
    for finding in findings:
        print(finding)
    print(f"{len(findings)} findings" if findings else f"ok: {folder} agrees with itself")
    return 1 if findings else 0
