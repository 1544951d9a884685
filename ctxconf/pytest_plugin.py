"""A pytest plugin: `pytest --ctxconf-impl=SPEC` runs the conformance cases inside a test suite.

One test item per case, named after it (`context.json::reread-unchanged-is-stub`), each run in a
fresh session of the implementation; a failing item shows the same account as `ctxconf run`:
the step, its rules, and a diff of expected and actual with whitespace visible. SPEC is anything
`ctxconf run --impl` takes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_STATE = pytest.StashKey[dict[str, Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ctxconf", "context-hygiene conformance cases")
    group.addoption(
        "--ctxconf-impl",
        metavar="SPEC",
        default=None,
        help="run the conformance cases against SPEC: reference, python:MODULE, "
        "cmd:COMMAND or an http:// URL",
    )
    group.addoption(
        "--ctxconf-spec",
        metavar="DIR",
        default=None,
        type=Path,
        help="a folder laid out like spec/ (default: the spec bundled with ctxconf)",
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
        type=float,
        default=10.0,
        help="how long one case may take (default 10)",
    )


class CaseFailed(Exception):
    """A case that did not pass; its text is the runner's account of it."""


class CaseItem(pytest.Item):
    def __init__(self, *, case: Any, seq: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.seq = seq
        for rule in case.rules:
            self.add_marker(pytest.mark.ctxconf_rule(rule))

    def runtest(self) -> None:
        from ctxconf.runner.display import describe_failure
        from ctxconf.runner.engine import run_case

        state = _state(self.config)
        result = run_case(
            state["transport"],
            self.seq,
            self.case,
            state["hello"],
            state["judge"],
            state["timeout"],
        )
        if result.verdict == "skipped":
            pytest.skip(result.message)
        if result.verdict not in ("pass", "expected-failure"):
            raise CaseFailed(describe_failure(result) or f"{result.verdict}: {result.message}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.case.area}: {self.case.name}"


class CaseFileNode(pytest.File):
    def collect(self) -> Iterator[CaseItem]:
        from ctxconf.runner.cases import load_case_file

        for case in load_case_file(self.path).cases:
            yield CaseItem.from_parent(self, name=case.name, case=case, seq=0)


def _state(config: pytest.Config) -> dict[str, Any]:
    """The implementation, started once for the whole test session and greeted."""
    state = config.stash.get(_STATE, None)
    if state is None:
        from ctxconf.paths import bundled_spec_dir
        from ctxconf.runner.engine import greet
        from ctxconf.runner.transports import transport_factory
        from ctxconf.runner.verdicts import Judge

        spec_dir = config.getoption("ctxconf_spec") or bundled_spec_dir()
        timeout = config.getoption("ctxconf_timeout")
        transport = transport_factory(
            config.getoption("ctxconf_impl"), timeout=timeout, spec_dir=spec_dir
        )()
        state = {
            "transport": transport,
            "hello": greet(transport),
            "timeout": timeout,
            "judge": Judge.for_spec(spec_dir),
        }
        config.stash[_STATE] = state
    return state


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "ctxconf_rule(anchor): a rule the conformance case exercises"
    )


@pytest.hookimpl(tryfirst=True)  # before -k and -m deselect, so they apply to the cases too
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if not config.getoption("ctxconf_impl"):
        return
    from ctxconf.paths import bundled_spec_dir

    spec_dir = config.getoption("ctxconf_spec") or bundled_spec_dir()
    files = config.getoption("ctxconf_cases") or sorted((spec_dir / "conformance").glob("*.json"))
    for seq_base, path in enumerate(files):
        resolved = Path(path).resolve()
        node = CaseFileNode.from_parent(session, path=resolved, nodeid=f"ctxconf/{resolved.name}")
        collected: list[CaseItem] = list(node.collect())
        for index, item in enumerate(collected):
            item.seq = seq_base * 100_000 + index
            items.append(item)
        # Reported as collected, so the count pytest prints includes the cases.
        result: list[pytest.Item | pytest.Collector] = [*collected]
        report = pytest.CollectReport(node.nodeid, "passed", None, result)
        config.hook.pytest_collectreport(report=report)


def pytest_sessionfinish(session: pytest.Session) -> None:
    state = session.config.stash.get(_STATE, None)
    if state is not None:
        state["transport"].close()
