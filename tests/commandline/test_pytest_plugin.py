"""`pytest --ctxconf-impl=SPEC`: one item per bundled case, failing with the runner's account."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass

import pytest

from ctxconf.specdata.paths import bundled_spec_dir
from tests.paths import FAUX

pytestmark = pytest.mark.slow  # each test runs pytest over every bundled case


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


def _case_count() -> int:
    return sum(
        len(json.loads(p.read_text(encoding="utf-8"))["cases"])
        for p in (bundled_spec_dir() / "conformance").glob("*.json")
    )


def _pytest(pytester: pytest.Pytester, *args: str) -> Ran:
    """`pytest ARGS` in the pytester's folder, in this process (pytester puts back the modules,
    the module path and the folder), the plugin found by its entry point as a user's pytest
    finds it, and the fakes of tests/fauxmplementations/ importable."""
    pytester.syspathinsert(FAUX)
    done = pytester.runpytest_inprocess("-p", "no:cacheprovider", *args)
    return Ran(int(done.ret), "\n".join(done.outlines), "\n".join(done.errlines))


def test_every_bundled_case_is_an_item_and_passes_against_the_reference(
    pytester: pytest.Pytester
) -> None:
    done = _pytest(pytester, "--ctxconf-impl=reference", "-v")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"collected {_case_count()} items" in done.stdout
    assert f"{_case_count()} passed" in done.stdout
    assert "context.json::reread-unchanged-is-stub PASSED" in done.stdout


def test_a_failing_case_shows_the_step_rules_and_diff(pytester: pytest.Pytester) -> None:
    done = _pytest(pytester, "--ctxconf-impl=python:never_stub", "-k", "reread-unchanged")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL reread-unchanged-is-stub step 1 (read)" in done.stdout
    assert "rules: ctx.id.given" in done.stdout
    assert "-[#a002 src/a.ts lines 1-2 of 2 sha 583e86b4] Unchanged since #a001" in done.stdout


def test_without_the_option_nothing_is_added(pytester: pytest.Pytester) -> None:
    done = _pytest(pytester)
    assert done.returncode == 5, done.stdout  # pytest's "no tests collected"


@pytest.mark.parametrize(
    "impl",
    [
        "refrence",
        "python:notinstalled",
        f"cmd:{sys.executable} {FAUX / 'crash_on_start.py'}",
    ],
    ids=["unknown-form", "import-error", "hello-fails"],
)
def test_an_implementation_that_cannot_start_is_one_error_and_no_item_runs(
    pytester: pytest.Pytester, impl: str
) -> None:
    done = _pytest(pytester, f"--ctxconf-impl={impl}")
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error
    errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1 and errors[0].startswith("ERROR: ctxconf: "), done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "no tests ran" in done.stdout
    assert " failed" not in done.stdout and " passed" not in done.stdout


@pytest.mark.parametrize("option", ["--ctxconf-timeout", "--ctxconf-start-timeout"])
@pytest.mark.parametrize("value", ["0", "nan", "soon"])
def test_a_timeout_out_of_range_is_a_usage_error(
    pytester: pytest.Pytester, option: str, value: str
) -> None:
    done = _pytest(pytester, "--ctxconf-impl=reference", f"{option}={value}")
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error
    assert f"argument {option}: " in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_the_start_timeout_bounds_the_hello(pytester: pytest.Pytester) -> None:
    impl = f"cmd:{sys.executable} {FAUX / 'slow_start.py'} 60"
    done = _pytest(pytester, f"--ctxconf-impl={impl}", "--ctxconf-start-timeout=1")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "ERROR: ctxconf: " in done.stderr and "no answer within 1 s" in done.stderr


def _summary_ids(stdout: str, outcome: str) -> list[str]:
    """The node ids of the short summary's lines for `outcome` (FAILED, XFAIL, …)."""
    prefix = outcome + " "
    return [
        line.removeprefix(prefix).split(" - ", 1)[0]
        for line in stdout.splitlines()
        if line.startswith(prefix)
    ]


def test_a_printed_node_id_pasted_back_runs_that_one_case(pytester: pytest.Pytester) -> None:
    first = _pytest(pytester, "--ctxconf-impl=python:never_stub", "-q", "-k", "context.json")
    assert first.returncode == 1, first.stdout + first.stderr
    failed = _summary_ids(first.stdout, "FAILED")
    assert len(failed) > 1, first.stdout
    again = _pytest(pytester, "--ctxconf-impl=python:never_stub", "-rA", failed[-1])
    assert again.returncode == 1, again.stdout + again.stderr
    assert "collected 1 item" in again.stdout
    assert _summary_ids(again.stdout, "FAILED") == [failed[-1]], again.stdout


def test_a_pasted_case_file_id_runs_its_cases_and_an_unknown_id_is_an_error(
    pytester: pytest.Pytester,
) -> None:
    listed = _pytest(pytester, "--ctxconf-impl=reference", "--collect-only", "-q")
    ids = [line for line in listed.stdout.splitlines() if "::" in line]
    assert len(ids) == _case_count(), listed.stdout
    file_id = ids[0].split("::")[0]
    in_file = sum(1 for i in ids if i.startswith(file_id + "::"))
    done = _pytest(pytester, "--ctxconf-impl=reference", file_id)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{in_file} passed" in done.stdout
    wrong = _pytest(pytester, "--ctxconf-impl=reference", f"{file_id}::no-such-case")
    assert wrong.returncode == 4, wrong.stdout + wrong.stderr
    assert f"not found: {file_id}::no-such-case" in wrong.stderr
    assert "Traceback" not in wrong.stderr


def test_expected_failures_are_xfails_and_an_unexpected_pass_fails(
    pytester: pytest.Pytester
) -> None:
    # The context area's cases alone: never_stub fails some of them and passes the rest.
    first = _pytest(
        pytester, "--ctxconf-impl=python:never_stub", "-q", "-rA", "-k", "context.json"
    )
    failed, passed = _summary_ids(first.stdout, "FAILED"), _summary_ids(first.stdout, "PASSED")
    assert failed and passed, first.stdout
    names = {"failing": failed[0].split("::")[1], "passing": passed[0].split("::")[1]}
    listing = pytester.path / "expected-failures.yaml"
    listing.write_text(
        f"{names['failing']}: stubs are not made yet\n{names['passing']}: listed by mistake\n",
        encoding="utf-8",
    )
    done = _pytest(
        pytester,
        "--ctxconf-impl=python:never_stub",
        f"--ctxconf-expected-failures={listing}",
        "-rA",
        failed[0],
        passed[0],
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"XFAIL {failed[0]} - stubs are not made yet" in done.stdout
    assert _summary_ids(done.stdout, "FAILED") == [passed[0]], done.stdout
    assert f"UNEXPECTED PASS {names['passing']}" in done.stdout


def test_a_bad_expected_failures_file_is_one_error_with_its_place(
    pytester: pytest.Pytester
) -> None:
    listing = pytester.path / "expected-failures.yaml"
    listing.write_text("reread-unchanged-is-stub: [not, a, reason]\n", encoding="utf-8")
    done = _pytest(
        pytester, "--ctxconf-impl=reference", f"--ctxconf-expected-failures={listing.name}"
    )
    assert done.returncode == 4, done.stdout + done.stderr
    assert f"{listing.name}:1:" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert " passed" not in done.stdout


def test_the_help_names_every_implementation_form_and_the_spec_it_uses(
    pytester: pytest.Pytester
) -> None:
    from ctxconf.runner.transports import SPEC_FORMS

    done = _pytest(pytester, "--help")
    assert done.returncode == 0, done.stderr
    help_text = " ".join(done.stdout.split())  # argparse wraps the lines
    for form in SPEC_FORMS.replace(" or ", ", ").split(", "):
        assert form.split()[0] in help_text, form
    assert "default: the spec bundled with ctxconf, wherever pytest runs" in help_text
