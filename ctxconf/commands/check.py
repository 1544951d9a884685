"""`ctxconf check`: validate, lint, regen --check and the reference run, with one summary."""

from __future__ import annotations

import argparse
import sys

from ctxconf.check import check_spec
from ctxconf.specdir import SpecDirError, add_spec_argument, spec_dir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_spec_argument(parser)


def run(args: argparse.Namespace) -> int:
    try:
        folder = spec_dir(args.spec)
    except SpecDirError as error:
        print(f"ctxconf check: {error}", file=sys.stderr)
        return 2
    stages = check_spec(folder)
    for stage in stages:
        for problem in stage.problems:
            print(f"{stage.name}: {problem}")
    for stage in stages:
        status = "ok" if not stage.problems else f"{len(stage.problems)} problems"
        print(f"  {stage.name:<14} {status:<14} {stage.seconds:6.2f}s")
    failed = [stage.name for stage in stages if stage.problems]
    skipped = 4 - len(stages)
    verdict = "FAILED: " + ", ".join(failed) if failed else "passed"
    print(
        f"ctxconf check {verdict}"
        + (f" ({skipped} stages skipped)" if skipped else "")
        + f": {folder}"
    )
    return 1 if failed else 0
