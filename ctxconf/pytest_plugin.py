"""A pytest plugin: `pytest --ctxconf-impl=SPEC` runs the conformance cases inside a test suite.

One test item per case, named after it (`ctxconf/context.json::reread-unchanged-is-stub`), each
run in a fresh session of the implementation; a failing item shows the same account as `ctxconf
run`: the step, its rules, and a diff of expected and actual with whitespace visible. SPEC is
anything `ctxconf run --impl` takes.

The items live under a virtual folder, `ctxconf/`, that pytest cannot find on disk; the plugin
takes such arguments off pytest's own list and selects the cases they name, so a printed node id
can be pasted back. An implementation that cannot start, a bad SPEC or an unusable file is one
usage error before any item runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ctxconf.runner.cases import Case, CaseFile
    from ctxconf.runner.expected_failures import ExpectedFailures
    from ctxconf.runner.protocol import Hello
    from ctxconf.runner.transports import Transport
    from ctxconf.runner.verdicts import Judge

ROOT = "ctxconf"  # the virtual folder the items live under


@dataclass
class _Run:
    """What the items share: the chosen node ids, then the implementation, started once."""

    chosen: tuple[str, ...] = ()
    timeout: float = 10.0
    start_timeout: float | None = None  # None: the runner's own
    expected: ExpectedFailures | None = None
    names: frozenset[str] = frozenset()  # every case name and rule anchor, for unused entries
    judge: Judge | None = None
    transport: Transport | None = None
    hello: Hello | None = None


_RUN = pytest.StashKey[_Run]()


def _seconds(text: str) -> float:
    """A timeout option's value, held to what `ctxconf run` takes."""
    from ctxconf.runner.run_checks import seconds_argument

    return seconds_argument(text)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ctxconf", "context-hygiene conformance cases")
    group.addoption(
        "--ctxconf-impl",
        metavar="SPEC",
        default=None,
        help="run the conformance cases against SPEC, as `ctxconf run --impl` takes it: "
        "reference, python:MODULE (in process), pyproc:MODULE (the same in a child process), "
        "cmd:COMMAND or an http:// URL",
    )
    group.addoption(
        "--ctxconf-spec",
        metavar="DIR",
        default=None,
        type=Path,
        help="a folder laid out like spec/ (default: the spec bundled with ctxconf, wherever "
        "pytest runs: unlike `ctxconf run`, it does not look for a checkout's spec/ above the "
        "current folder)",
    )
    group.addoption(
        "--ctxconf-cases",
        metavar="FILE",
        action="append",
        type=Path,
        default=[],
        help="a case file to run (repeatable; default: every case file of the spec)",
    )
    group.addoption(
        "--ctxconf-timeout",
        metavar="SECONDS",
        type=_seconds,
        default=10.0,
        help="how long one case may take (default 10)",
    )
    group.addoption(
        "--ctxconf-start-timeout",
        metavar="SECONDS",
        type=_seconds,
        default=None,
        help="how long the implementation may take to start and answer hello (default 30)",
    )
    group.addoption(
        "--ctxconf-expected-failures",
        metavar="FILE",
        default=None,
        type=Path,
        help="YAML: case name or rule anchor -> reason, as for `ctxconf run "
        "--expected-failures`; a listed case is an xfail, and one that passes fails",
    )


class CaseFailed(Exception):
    """A case that did not pass; its text is the runner's account of it."""


class CaseItem(pytest.Item):
    def __init__(self, *, case: Case, seq: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.seq = seq
        for rule in case.rules:
            self.add_marker(pytest.mark.ctxconf_rule(rule))

    def runtest(self) -> None:
        from ctxconf.runner.display import describe_failure
        from ctxconf.runner.engine import run_case
        from ctxconf.terminal.controls import visible_controls

        run = self.config.stash[_RUN]
        assert run.transport is not None and run.hello is not None and run.judge is not None
        result = run_case(run.transport, self.seq, self.case, run.hello, run.judge, run.timeout)
        if result.verdict == "skipped":
            pytest.skip(visible_controls(result.message))  # the implementation's words
        if result.verdict == "expected-failure":
            listed = (
                run.expected.reason_for(self.case.name, self.case.rules) if run.expected else None
            )
            pytest.xfail(listed or result.message)
        if result.verdict != "pass":
            raise CaseFailed(describe_failure(result) or f"{result.verdict}: {result.message}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.case.area}: {self.case.name}"


class CaseFileNode(pytest.File):
    """A case file; its items are made by the plugin, which has already read it."""

    def collect(self) -> list[CaseItem]:
        return []


def _is_virtual(arg: str, invocation_dir: Path) -> bool:
    """An argument naming the virtual folder, which pytest would reject as not found."""
    path = arg.split("::", 1)[0].rstrip("/")
    if path != ROOT and not path.startswith(ROOT + "/"):
        return False
    return not (invocation_dir / path).exists()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "ctxconf_rule(anchor): a rule the conformance case exercises"
    )
    if not config.getoption("ctxconf_impl"):
        return
    invocation_dir = config.invocation_params.dir
    chosen = [arg for arg in config.args if _is_virtual(arg, invocation_dir)]
    # Taken off pytest's list, which would stop at them as "file or directory not found".
    config.args[:] = [arg for arg in config.args if arg not in chosen]
    config.stash[_RUN] = _Run(
        chosen=tuple(arg.rstrip("/") for arg in chosen),
        timeout=config.getoption("ctxconf_timeout"),
        start_timeout=config.getoption("ctxconf_start_timeout"),
    )


def _spec_dir(config: pytest.Config) -> Path:
    from ctxconf.specdata.paths import bundled_spec_dir

    given: Path | None = config.getoption("ctxconf_spec")
    if given is None:
        return bundled_spec_dir()
    if not given.is_dir():
        raise pytest.UsageError(f"--ctxconf-spec {given}: no such folder")
    return given.resolve()


def _load(config: pytest.Config, spec_dir: Path) -> list[CaseFile]:
    from ctxconf.errors import CtxconfError
    from ctxconf.runner.cases import default_case_files, load_cases
    from ctxconf.runner.expected_failures import load_expected_failures
    from ctxconf.runner.verdicts import Judge

    run = config.stash[_RUN]
    try:
        files = load_cases(config.getoption("ctxconf_cases") or default_case_files(spec_dir))
        expected_path: Path | None = config.getoption("ctxconf_expected_failures")
        if expected_path is not None:
            run.expected = load_expected_failures(expected_path)
        if run.expected is None:
            run.judge = Judge.for_spec(spec_dir)
        else:
            run.judge = Judge.for_spec(spec_dir, expected_failures=run.expected)
    except CtxconfError as error:
        raise pytest.UsageError(f"ctxconf: {error.describe()}") from None
    run.names = frozenset(n for f in files for c in f.cases for n in (c.name, *c.rules))
    return files


def _selected(run: _Run, file_id: str, item_id: str) -> bool:
    return not run.chosen or any(c in (ROOT, file_id, item_id) for c in run.chosen)


@pytest.hookimpl(tryfirst=True)  # before -k and -m deselect, so they apply to the cases too
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if not config.getoption("ctxconf_impl"):
        return
    run = config.stash[_RUN]
    files = _load(config, _spec_dir(config))
    ids = {ROOT} | {f"{ROOT}/{f.path.name}" for f in files}
    ids |= {f"{ROOT}/{f.path.name}::{case.name}" for f in files for case in f.cases}
    missing = [chosen for chosen in run.chosen if chosen not in ids]
    if missing:
        raise pytest.UsageError(
            *(
                f"not found: {m} (no such case file or case among the ctxconf cases)"
                for m in missing
            )
        )
    for seq_base, case_file in enumerate(files):
        file_id = f"{ROOT}/{case_file.path.name}"
        node = CaseFileNode.from_parent(session, path=case_file.path.resolve(), nodeid=file_id)
        collected = [
            CaseItem.from_parent(node, name=case.name, case=case, seq=seq_base * 100_000 + index)
            for index, case in enumerate(case_file.cases)
            if _selected(run, file_id, f"{file_id}::{case.name}")
        ]
        items.extend(collected)
        # Reported as collected, so the count pytest prints includes the cases.
        result: list[pytest.Item | pytest.Collector] = [*collected]
        config.hook.pytest_collectreport(
            report=pytest.CollectReport(node.nodeid, "passed", None, result)
        )


def _start(config: pytest.Config, will_run: bool) -> None:
    """Make the transport (a bad SPEC fails here) and, when items will run, greet it."""
    from ctxconf.errors import CtxconfError
    from ctxconf.runner.engine import greet
    from ctxconf.runner.transports import transport_factory
    from ctxconf.runner.transports.base import START_SECONDS

    run = config.stash[_RUN]
    try:
        factory = transport_factory(
            config.getoption("ctxconf_impl"),
            start_timeout=START_SECONDS if run.start_timeout is None else run.start_timeout,
            spec_dir=_spec_dir(config),
        )
        if will_run:
            transport = factory()
            run.hello = greet(transport)  # closes the transport when it fails
            run.transport = transport
    except CtxconfError as error:
        # The runner names its own option; here the same value came from --ctxconf-impl.
        described = error.describe().replace("--impl", "--ctxconf-impl", 1)
        raise pytest.UsageError(f"ctxconf: {described}") from None


def pytest_collection_finish(session: pytest.Session) -> None:
    config = session.config
    if not config.getoption("ctxconf_impl"):
        return
    if any(isinstance(item, CaseItem) for item in session.items):
        _start(config, will_run=not config.getoption("collectonly"))


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    run = config.stash.get(_RUN, None)
    if run is None or run.expected is None or run.expected.path is None:
        return
    for key in run.expected.unused(run.names):
        terminalreporter.write_line(
            f"warning: {run.expected.path}:{run.expected.lines[key]}: {key!r} names no case "
            "and no rule of the case files: it has no effect",
            yellow=True,
        )


def _close(run: _Run | None) -> None:
    if run is not None and run.transport is not None:
        run.transport.close()
        run.transport = None


def pytest_sessionfinish(session: pytest.Session) -> None:
    _close(session.config.stash.get(_RUN, None))
