"""`ctxconf fuzz`: its request, the checks of its arguments, and the run it prints.

    execute(FuzzRequest(impl="cmd:./my-harness --conformance", seed=1), stdout=..., stderr=...)

Exit codes: 0 nothing found, 1 a disagreement, 2 unusable arguments or an implementation that
cannot start.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ctxconf.errors import CtxconfError
from ctxconf.exitcodes import EXIT_FAILED as EXIT_FOUND
from ctxconf.exitcodes import EXIT_OK, EXIT_USAGE
from ctxconf.fuzzing.findings import describe_finding, finding_document, write_document
from ctxconf.fuzzing.fuzz import fuzz
from ctxconf.fuzzing.implementation import Implementation
from ctxconf.fuzzing.model import (
    AREA,
    DEFAULT_EXAMPLES,
    DEFAULT_REPORTS,
    DEFAULT_TIMEOUT,
    UNLIMITED,
    FuzzOptions,
)
from ctxconf.fuzzing.strategies import ops_of
from ctxconf.reference import AREAS, REGISTRY, read_loop
from ctxconf.runner.errors import UsageError
from ctxconf.terminal.controls import visible_controls
from ctxconf.userfiles.atomic import OutputError, check_folder, check_output
from ctxconf.userfiles.document import display


@dataclass(frozen=True)
class FuzzRequest:
    impl: str
    examples: int | None = None  # None: DEFAULT_EXAMPLES, or as many as --max-time allows
    seed: int | None = None  # None: a random seed, printed
    max_time: float | None = None
    out: Path | None = None
    timeout: float = DEFAULT_TIMEOUT
    accept_equivalent_diffs: bool = False
    area: str = AREA
    ops: tuple[str, ...] | None = None  # only these ops (None: every op of the area) ...
    skip_ops: tuple[str, ...] = ()  # ... but for these
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)

    def chosen_ops(self) -> frozenset[str] | None:
        """The ops the sessions are made of; None for every op of the area."""
        if self.ops is None and not self.skip_ops:
            return None
        every = self.ops if self.ops is not None else ops_of(self.area)
        return frozenset(every) - frozenset(self.skip_ops)


_HINT = "see `ctxconf fuzz --help`"


def _check(request: FuzzRequest) -> None:
    if request.area not in AREAS:
        raise UsageError(f"--area {request.area}: one of {', '.join(AREAS)}", hint=_HINT)
    known = ops_of(request.area)
    for option, names in (("--ops", request.ops or ()), ("--skip-ops", request.skip_ops)):
        unknown = [name for name in names if name not in known]
        if unknown:
            raise UsageError(
                f"{option} {','.join(names)}: no op {', '.join(unknown)} in the area "
                f"{request.area}; its ops are {', '.join(known)}",
                hint=_HINT,
            )
    if request.chosen_ops() == frozenset():
        raise UsageError(
            f"--ops and --skip-ops leave no op of the area {request.area} to generate; its "
            f"ops are {', '.join(known)}",
            hint=_HINT,
        )
    if request.examples is not None and request.examples < 1:
        raise UsageError(f"--examples {request.examples}: at least 1", hint=_HINT)
    if request.seed is not None and request.seed < 0:
        raise UsageError(f"--seed {request.seed}: a seed is a number from 0", hint=_HINT)
    max_time = request.max_time
    if max_time is not None and not (max_time > 0 and math.isfinite(max_time)):
        raise UsageError(f"--max-time {max_time:g}: a number of seconds above 0", hint=_HINT)
    if not (request.timeout > 0 and math.isfinite(request.timeout)):
        raise UsageError(f"--timeout {request.timeout:g}: a number of seconds above 0", hint=_HINT)
    if request.out is not None and not request.out.is_dir() and not request.out.parent.is_dir():
        raise UsageError(
            f"--out {request.out}: the folder {request.out.parent} does not exist",
            hint="give an existing folder, or a file in one",
        )
    # Where a finding will go, checked before the sessions are generated.
    if request.out is not None and not request.out.is_dir():
        check_output(request.out)
    else:
        check_folder(request.out or DEFAULT_REPORTS)


def execute(request: FuzzRequest, *, stdout: TextIO, stderr: TextIO) -> int:
    """Fuzz `request.impl`, print what was found, write it as a case file; the exit code."""
    try:
        _check(request)
        config = REGISTRY[request.area].config(read_loop())
        implementation = Implementation(request.impl, timeout=request.timeout, area=request.area)
    except CtxconfError as error:
        stderr.write(f"ctxconf fuzz: {visible_controls(error.describe())}\n")
        return EXIT_USAGE
    seed = secrets.randbelow(2**32) if request.seed is None else request.seed
    examples = request.examples
    if examples is None:
        examples = DEFAULT_EXAMPLES if request.max_time is None else UNLIMITED
    bounds = [] if examples == UNLIMITED else [f"up to {examples} sessions"]
    if request.max_time is not None:
        bounds.append(f"for at most {request.max_time:g} s")
    ops = request.chosen_ops()
    if ops is not None:
        bounds.append(f"ops {','.join(op for op in ops_of(request.area) if op in ops)}")
    name = visible_controls(implementation.name, also="\n")  # the implementation's own word
    stdout.write(
        f"ctxconf fuzz: seed {seed}; area {request.area}; {', '.join(bounds)}; "
        f"{request.impl} ({name}) against the reference\n"
    )
    stdout.flush()
    options = FuzzOptions(
        examples, seed, request.max_time, request.accept_equivalent_diffs, request.area, ops
    )
    try:
        outcome = fuzz(implementation, options, config, clock=request.clock)
    finally:
        implementation.close()
    if outcome.finding is None:
        why = " (time was up)" if outcome.timed_out else ""
        stdout.write(
            f"no disagreement in {outcome.examples} sessions{why}, "
            f"{outcome.elapsed:.1f} s; rerun with --seed {seed}\n"
        )
        return EXIT_OK
    finding = outcome.finding
    stdout.write(
        f"disagreement found after {outcome.examples} sessions, shrunk in "
        f"{outcome.shrink_runs} more runs ({outcome.elapsed:.1f} s"
        f"{'; time ran out while shrinking' if outcome.timed_out else ''})\n\n"
    )
    for line in describe_finding(finding):  # its failure and stderr are the implementation's
        stdout.write(visible_controls(line) + "\n")
    document = finding_document(finding, seed, request.impl, config)
    try:
        path = write_document(document, request.out)
    except OutputError as error:
        stderr.write(f"ctxconf fuzz: {error.describe()}\n")
        return EXIT_USAGE
    case = document["cases"][0]
    stdout.write(
        f"\nwrote {display(path)}: case {case['name']}, rules guessed: {', '.join(case['rules'])}\n"
        f"review its rules and name, then add it to the suite (docs/fuzzing.md); "
        f"rerun with --seed {seed}\n"
    )
    return EXIT_FOUND
