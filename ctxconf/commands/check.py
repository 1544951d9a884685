"""`ctxconf check`: validate, lint, regen --check and the reference run, with one summary."""

from __future__ import annotations

import argparse
import sys

from ctxconf.specdata.folder import add_spec_argument, announce, report_error, resolve_spec
from ctxconf.spectools.check import check_spec
from ctxconf.spectools.validate import UnusableInput
from ctxconf.userfiles.document import SpecFileError, plural, read_once


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_spec_argument(parser)


def run(args: argparse.Namespace) -> int:
    try:
        folder = resolve_spec(args.spec)
        announce(folder, sys.stderr, given=args.spec)
        with read_once():  # every stage reads the same files: from disk once
            stages = check_spec(folder)
    except SpecFileError as error:
        return report_error("check", error, sys.stderr)
    except UnusableInput as error:
        print(f"ctxconf check: {error}", file=sys.stderr)
        print(f"hint: {error.hint}", file=sys.stderr)
        return 2
    for stage in stages:
        for problem in stage.problems:
            print(f"{stage.name}: {problem}")
    for stage in stages:
        status = "ok" if not stage.problems else plural(len(stage.problems), "problem")
        print(f"  {stage.name:<14} {status:<14} {stage.seconds:6.2f}s")
    failed = [stage.name for stage in stages if stage.problems]
    skipped = 4 - len(stages)
    verdict = "FAILED: " + ", ".join(failed) if failed else "passed"
    print(
        f"ctxconf check {verdict}"
        + (f" ({plural(skipped, 'stage')} skipped)" if skipped else "")
        + f": {folder}"
    )
    return 1 if failed else 0
