"""The results file (written, validated, read back, refused when broken) and the JUnit XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ctxconf.runner.engine import RunOptions, run_suite
from ctxconf.runner.errors import ResultsFileError
from ctxconf.runner.junit import junit_tree, write_junit
from ctxconf.runner.reference_impl import ReferenceImplementation
from ctxconf.runner.results import CASE_VERDICTS, Results, dump, load, load_results
from ctxconf.runner.transports import CaseFailure, FakeTransport, Message
from ctxconf.specdata.paths import bundled_spec_dir

REFERENCE = ReferenceImplementation()


def _mixed_results(folder: Path) -> Results:
    """A run with a pass, a fail, an error with stderr, and a skip (cases 0 to 3)."""

    def answer(request: Message) -> Message:
        seq = request["seq"]
        response = REFERENCE.run(request)
        if seq == 1:
            response["outputs"][0] = response["outputs"][0] + "\x1b[31m extra\t"
        if seq == 2:
            raise CaseFailure("crash", "the implementation exited with code 3", stderr="bad\x00\n")
        if seq == 3:
            return {"seq": seq, "skipped": "not here"}
        return response

    cases = json.loads((bundled_spec_dir() / "conformance" / "context.json").read_text("utf-8"))
    cases["cases"] = cases["cases"][:4]
    path = folder / "four.json"
    path.write_text(json.dumps(cases), encoding="utf-8")
    return run_suite(RunOptions(impl="fake", case_files=(path,)),
                     factory=lambda: FakeTransport(answer))


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Results:
    results = _mixed_results(tmp_path_factory.mktemp("cases"))
    assert [c.verdict for c in results.cases] == ["pass", "fail", "crash", "skipped"]
    return results


def test_round_trip(tmp_path: Path, mixed: Results) -> None:
    path = tmp_path / "r.json"
    dump(mixed, path)
    again = load(path)
    assert again.to_json() == mixed.to_json()
    assert again.cases[2].stderr == "bad\x00\n"
    assert load_results is load


def _broken(tmp_path: Path, mixed: Results, change: Any) -> Path:
    data = mixed.to_json()
    change(data)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("footer"), "no footer: the run that wrote it was cut short"),
        (lambda d: d.update(format_version=2), "results format version 2"),
        (lambda d: d.update(format="other"), "not a ctxconf results file"),
        (lambda d: d["cases"][0].update(verdict="great"), "cases/0/verdict: 'great' is not one of"),
        (lambda d: d["cases"][1]["steps"][0].pop("actual"),
         "cases/1/steps/0: 'actual' is a required"),
        (lambda d: d["header"].update(extra=1), "header: Additional properties are not allowed"),
    ],
    ids=["no-footer", "version", "format", "verdict", "step-field", "extra-field"],
)
def test_invalid_files_are_refused_with_the_place(
    tmp_path: Path, mixed: Results, change: Any, message: str
) -> None:
    path = _broken(tmp_path, mixed, change)
    with pytest.raises(ResultsFileError, match=message) as raised:
        load(path)
    assert str(path) in raised.value.message


def test_a_file_that_holds_a_case_more_than_once_is_refused(
    tmp_path: Path, mixed: Results
) -> None:
    path = _broken(tmp_path, mixed, lambda d: d.update(cases=d["cases"] * 3))
    with pytest.raises(ResultsFileError) as raised:
        load(path)
    first = mixed.cases[0]
    assert (
        f"cases/0: the case {first.area}/{first.name} is given 3 times (cases 0, 4, 8); "
        "a run writes each case once"
    ) in raised.value.message
    assert raised.value.message.count("is given 3 times") == len(mixed.cases)


def test_a_truncated_file_is_refused(tmp_path: Path, mixed: Results) -> None:
    path = tmp_path / "r.json"
    dump(mixed, path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.index('\n"footer"')], encoding="utf-8")
    with pytest.raises(ResultsFileError, match="cut short"):
        load(path)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ResultsFileError, match="not JSON"):
        load(path)


def test_totals_cover_every_verdict(mixed: Results) -> None:
    assert list(mixed.footer.totals) == list(CASE_VERDICTS)
    assert sum(mixed.footer.totals.values()) == len(mixed.cases)


# -- JUnit ------------------------------------------------------------------------------------


def test_junit_one_testcase_per_case(tmp_path: Path, mixed: Results) -> None:
    path = tmp_path / "junit.xml"
    write_junit(mixed, path)
    root = ET.parse(path).getroot()  # parses: control characters were made printable
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == (
        "4", "1", "1", "1"
    )
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "context"
    cases = suite.findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("context", c.name) for c in mixed.cases
    ]
    passed, failed, crashed, skipped = cases
    assert list(passed) == []
    failure = failed.find("failure")
    assert failure is not None and failure.get("type") == "fail"
    assert "step 0" in (failure.get("message") or "")
    assert "⟨U+001B⟩[31m extra→" in (failure.text or "")  # the diff, with tabs and escapes visible
    error = crashed.find("error")
    assert error is not None and error.get("message") == "the implementation exited with code 3"
    assert crashed.findtext("system-err") == "bad\\x00\n"
    skip = skipped.find("skipped")
    assert skip is not None and skip.get("message") == "not here"


def test_junit_expected_failures_and_unexpected_passes(mixed: Results) -> None:
    cases = list(mixed.cases)
    cases[0] = replace(cases[0], verdict="unexpected-pass", message="flaky")
    cases[1] = replace(cases[1], verdict="expected-failure", message="known")
    root = junit_tree(replace(mixed, cases=tuple(cases))).getroot()
    assert root is not None
    first, second = list(root.iter("testcase"))[:2]
    failure = first.find("failure")
    assert failure is not None and "unexpected pass" in (failure.get("message") or "")
    skipped = second.find("skipped")
    assert skipped is not None and skipped.get("message") == "expected failure: known"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"format": "ctxconf-results", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
         "nest deeper than"),
        ('{"format": "ctxconf-results", "n": ' + "9" * 5000 + "}", "an integer of 5,000 digits"),
        ('{"format": "ctxconf-results", "n": NaN}', "NaN"),
    ],
    ids=["deep", "huge-integer", "nan"],
)
def test_ctxconf_report_refuses_a_hostile_results_file(
    tmp_path: Path, text: str, said: str
) -> None:
    from tests.cli import ctxconf

    path = tmp_path / "r.json"
    path.write_text(text, encoding="utf-8")
    done = ctxconf("report", path, expect=2)
    assert f"{path}: refused: " in done.stderr and said in done.stderr
    assert len(done.stderr.strip().split("\n")) <= 2  # the message and its hint


def test_an_interrupted_footer_is_kept_on_reload(tmp_path: Path, mixed: Results) -> None:
    stopped = replace(mixed, footer=replace(mixed.footer, interrupted=True, exit_code=130))
    path = tmp_path / "r.json"
    dump(stopped, path)
    assert load(path).footer.interrupted
    assert json.loads(path.read_text("utf-8"))["footer"]["interrupted"] is True
