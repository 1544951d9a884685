"""`ctxconf check`: the gate for spec edits, every check of the spec folder in one pass."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ctxconf.specdata.reader import list_case_files, read_loop
from ctxconf.spectools.lint import lint_spec
from ctxconf.spectools.regen import regenerate
from ctxconf.spectools.validate import validate_spec
from ctxconf.userfiles.document import plural


@dataclass(frozen=True)
class Stage:
    name: str
    problems: list[str]
    seconds: float


def _reference_run(spec: Path) -> list[str]:
    """The reference run as any implementation is run: through the runner, its protocol checks
    and its verdicts (whether the texts are current is regen --check's part)."""
    from ctxconf.errors import CtxconfError
    from ctxconf.runner.engine import RunOptions, run_suite

    try:
        results = run_suite(RunOptions(impl="reference", spec_dir=spec))
    except CtxconfError as error:  # input the other stages let through: a problem, not a crash
        return [error.message]
    return [
        f"{case.file}: {case.name}: {case.verdict}" + (f": {case.message}" if case.message else "")
        for case in results.cases
        if case.verdict != "pass"
    ]


def _regen_check(spec: Path) -> list[str]:
    result = regenerate(list_case_files(spec), read_loop(spec), check=True)
    return [
        f"{c.file.name}: {c.name}: "
        + (
            "disagrees with the authors' case"
            if c.authors
            else f"{plural(len(c.steps), 'expected text')} "
            f"{'is' if len(c.steps) == 1 else 'are'} stale; run ctxconf regen"
        )
        for c in result.changes
    ] + result.errors


def check_spec(spec: Path) -> list[Stage]:
    """Run every stage; a stage after a failed validation is skipped (its input is not sound)."""
    stages: list[Stage] = []
    steps: list[tuple[str, Callable[[Path], list[str]]]] = [
        ("validate", lambda s: [str(p) for p in validate_spec(s)]),
        ("lint", lambda s: [str(f) for f in lint_spec(s)]),
        ("regen --check", _regen_check),
        ("reference", _reference_run),
    ]
    for name, stage in steps:
        start = time.perf_counter()
        problems = stage(spec)
        stages.append(Stage(name, problems, time.perf_counter() - start))
        if name == "validate" and problems:
            break
    return stages
