"""A crash is charged to the case that was running: an implementation that exits after
answering costs the next case nothing (it is restarted, and its stderr says so), and a case
that times out after the implementation exited names the exit code."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ctxconf.runner.results import load
from tests.cli import ctxconf
from tests.paths import FAUX

pytestmark = pytest.mark.slow  # each test runs ctxconf against a broken process

FEW = ["-k", "stub.unchanged"]  # a few cases; the fauxmplementations break on the second


def _cmd(script: str) -> str:
    return f"cmd:{sys.executable} {FAUX / script}.py"


def test_an_exit_after_answering_costs_the_next_case_nothing(tmp_path: Path) -> None:
    done = ctxconf("run", "--impl", _cmd("exit_after_answer"), *FEW, "--json", "r.json",
                   cwd=tmp_path)  # fmt: skip
    cases = load(tmp_path / "r.json").cases
    assert len(cases) >= 3 and [case.verdict for case in cases] == ["pass"] * len(cases), done
    assert (
        "[ctxconf] the implementation exited with code 0 after answering the previous case, "
        "before this one was sent: it was restarted for this case, at no cost to it"
    ) in cases[2].stderr
    assert "restarted" not in cases[1].stderr + cases[3 if len(cases) > 3 else 0].stderr


def test_a_timeout_after_the_implementation_exited_names_its_exit_code(tmp_path: Path) -> None:
    done = ctxconf("run", "--impl", _cmd("exit_leaving_a_child"), *FEW, "--timeout", "3",
                   "--json", "r.json", cwd=tmp_path, expect=1)  # fmt: skip
    verdicts = [(case.verdict, case.message) for case in load(tmp_path / "r.json").cases]
    assert verdicts[1] == (
        "timeout",
        "no answer within 3 s: the implementation had exited with code 5, but a process it "
        "started held its stdout open; the whole process group was killed",
    ), done
    assert [verdict for verdict, _ in verdicts[2:]] == ["pass"] * (len(verdicts) - 2)
