"""What the terminal shows (diffs with visible whitespace, the summary line, the progress line)
and the -k expression language."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace

import pytest

from ctxconf.runner.display import (
    MAX_DIFF_LINES,
    MAX_SHOWN_CHARS,
    Progress,
    describe_failure,
    rule_summary,
    summary_line,
    visible_diff,
)
from ctxconf.runner.errors import UsageError
from ctxconf.runner.results import CASE_VERDICTS, CaseResult, CaseVerdict, StepResult
from ctxconf.runner.selection import parse_selector


@pytest.mark.parametrize(
    ("expected", "actual", "lines"),
    [
        ("a\nb", "a \nb", ["-a⏎", "+a·⏎"]),
        ("a\tb", "a  b", ["-a→b", "+a  b"]),
        ("a\nb", "a\r\nb", ["-a⏎", "+a␍⏎"]),
        ("a\nb", "a\nb\n", ["-b", "+b⏎"]),
        ("x\ny  \nz", "x\ny\nz", ["-y··⏎", "+y⏎", " z"]),
        ("OK 1 K", "OK\u00a01\u200b \u212a", ["-OK 1 K", "+OK⟨U+00A0⟩1⟨U+200B⟩ ⟨U+212A⟩"]),
    ],
    ids=[
        "trailing-space", "tab", "carriage-return", "final-newline", "context-unmarked",
        "look-alikes",
    ],
)
def test_visible_diff(expected: str, actual: str, lines: list[str]) -> None:
    diff = visible_diff(expected, actual).split("\n")
    assert diff[:2] == ["--- expected", "+++ actual"]
    assert diff[2].startswith("@@ ")
    body = diff[3:]
    position = 0
    for line in lines:  # in this order, not necessarily adjacent
        assert line in body[position:], (line, body)
        position = body.index(line, position) + 1


def test_equal_texts_have_no_diff() -> None:
    assert visible_diff("same\n", "same\n") == ""


@pytest.mark.parametrize(
    ("totals", "line"),
    [
        ({"pass": 3}, "3 passed, 0 failed"),
        ({"pass": 1, "fail": 2, "error": 1, "crash": 2, "skipped": 1},
         "1 passed, 2 failed, 1 error, 2 crashes, 1 skipped"),
        ({"expected-failure": 2, "unexpected-pass": 1, "equivalent-diff": 1, "timeout": 1},
         "0 passed, 0 failed, 1 equivalent diff, 1 timeout, 1 unexpected pass, "
         "2 expected failures"),
    ],
    ids=["clean", "mixed", "others"],
)
def test_summary_line(totals: dict[str, int], line: str) -> None:
    assert summary_line(totals) == line
    assert summary_line(totals, 1.5) == line + " in 1.50 s"


def _case(verdict: CaseVerdict) -> CaseResult:
    return CaseResult("context", "c.json", f"case-{verdict}", "", (), verdict, "", 0.0, "", ())


def test_progress_rewrites_one_line_on_a_terminal() -> None:
    stream = io.StringIO()
    progress = Progress(stream, 3, enabled=True)
    verdicts: tuple[CaseVerdict, ...] = ("pass", "fail", "pass")
    for verdict in verdicts:
        progress.update(_case(verdict))
    progress.clear()
    text = stream.getvalue()
    assert "\n" not in text
    assert text.count("\r") == 4
    assert "[3/3] 1 not passing  case-pass" in text
    assert text.endswith("\r\x1b[K")


def test_no_progress_off_a_terminal() -> None:
    stream = io.StringIO()
    progress = Progress(stream, len(CASE_VERDICTS), enabled=False)
    for verdict in CASE_VERDICTS:
        progress.update(_case(verdict))
    progress.clear()
    assert stream.getvalue() == ""


def test_progress_off_a_terminal_is_a_line_now_and_then() -> None:
    stream = io.StringIO()
    now = [0.0]
    progress = Progress(stream, 40, enabled=False, every=10.0, clock=lambda: now[0])
    for index in range(40):
        now[0] = index + 1.0  # one case a second
        progress.update(_case("fail" if index % 10 == 0 else "pass"))
    lines = stream.getvalue().splitlines()
    assert lines == ["10 of 40 cases, 1 not passing", "20 of 40 cases, 2 not passing",
                     "30 of 40 cases, 3 not passing"]


def _failed(actual: str, expected: str = "x\n", stderr: str = "", message: str = "") -> CaseResult:
    step = StepResult(0, {"op": "output"}, expected, actual, "fail", message)
    return CaseResult("context", "c.json", "a-case", "", ("ctx.cap.head",), "fail", "", 0.0,
                      stderr, (step,))


def test_a_huge_output_is_shown_as_head_and_tail_with_its_size_and_hash() -> None:
    import hashlib

    actual = "HEAD\n" + "y" * (MAX_SHOWN_CHARS * 50) + "\nTAIL"
    text = describe_failure(_failed(actual))
    assert len(text) < MAX_SHOWN_CHARS
    assert f"{len(actual):,} characters" in text
    assert hashlib.sha256(actual.encode()).hexdigest() in text
    assert "HEAD" in text and "TAIL" in text


def test_a_long_diff_is_cut() -> None:
    expected = "".join(f"{i}\n" for i in range(2000))
    actual = "".join(f"{i}!\n" for i in range(2000))
    lines = describe_failure(_failed(actual, expected)).split("\n")
    assert len(lines) < MAX_DIFF_LINES + 10
    assert lines[-1].strip().startswith("… ") and lines[-1].endswith("more diff lines")


def test_a_failure_shows_the_stderr_bounded() -> None:
    stderr = "".join(f"line {i} " + "z" * 1000 + "\n" for i in range(100))
    text = describe_failure(_failed("y\n", stderr=stderr))
    assert "stderr (last 20 of 100 lines):" in text
    assert "line 99 " in text and "line 79 " not in text
    assert max(len(line) for line in text.split("\n")) < 400


def test_a_step_the_implementation_could_not_do_shows_its_message() -> None:
    case = _failed(None, message="the implementation answered: no recall yet")  # type: ignore[arg-type]
    text = describe_failure(case)
    assert "FAIL a-case step 0 (output)" in text
    assert "the implementation answered: no recall yet" in text


def test_a_steps_input_shows_characters_that_pass_for_others_escaped() -> None:
    path = "a\u00a0b\ufeffc\u212a\u2028d\x7fé—…😀"
    case = _failed("y\n")
    step = StepResult(0, {"op": "read", "path": path}, "x\n", "y\n", "fail")
    text = describe_failure(replace(case, steps=(step,)))
    line = next(line for line in text.split("\n") if line.startswith("  input: "))
    assert line == '  input: {"op": "read", "path": "a\\u00a0b\\ufeffc\\u212a\\u2028d\\u007fé—…😀"}'
    assert json.loads(line.removeprefix("  input: "))["path"] == path  # still the JSON sent


def _judged(name: str, rules: tuple[str, ...], verdict: CaseVerdict) -> CaseResult:
    return CaseResult("context", "c.json", name, "", rules, verdict, "", 0.0, "", ())


def test_a_rule_whose_cases_pass_unexpectedly_is_no_fail() -> None:
    cases = [
        *(_judged(f"more-{i}", ("ctx.read.more",), "unexpected-pass") for i in range(4)),
        _judged("range-1", ("ctx.stub.range",), "fail"),
        _judged("range-2", ("ctx.stub.range",), "unexpected-pass"),
        _judged("range-3", ("ctx.stub.range",), "expected-failure"),
        _judged("cap-1", ("ctx.cap.head",), "pass"),
    ]
    assert rule_summary(cases).split("\n") == [
        "per rule: 2 rules with cases not passing",
        "  FAIL            ctx.stub.range  1 of 3 cases, and 1 passing though listed as "
        "expected failures",
        "  UNEXPECTED PASS ctx.read.more   4 of 4 cases passing though listed as expected "
        "failures: take them off the list",
        "  ok              every case of the one other rule",
    ]


# -- -k --------------------------------------------------------------------------------------

NAMES = {
    "stub": ["reread-is-stub", "ctx.stub.unchanged"],
    "cap": ["long-output", "ctx.cap.head"],
    "both": ["capped-stub", "ctx.cap.head", "ctx.stub.range"],
}


@pytest.mark.parametrize(
    ("expression", "chosen"),
    [
        ("stub", {"stub", "both"}),
        ("STUB", {"stub", "both"}),
        ("not stub", {"cap"}),
        ("stub and cap", {"both"}),
        ("stub and not cap", {"stub"}),
        ("long or reread", {"stub", "cap"}),
        ("not (stub or long)", set()),
        ("ctx.cap and (range or not capped)", {"both", "cap"}),
        ("not not cap", {"cap", "both"}),
        ("reread or long and range", {"stub"}),
    ],
)
def test_k_expressions(expression: str, chosen: set[str]) -> None:
    selector = parse_selector(expression)
    assert {key for key, names in NAMES.items() if selector.matches(names)} == chosen


def test_and_binds_tighter_than_or() -> None:
    # "x or y and z" is "x or (y and z)": a case with only x matches.
    assert parse_selector("x or y and z").matches(["x"])
    assert not parse_selector("(x or y) and z").matches(["x"])


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("", "is empty"),
        ("   ", "is empty"),
        ("a and", "ends too early"),
        ("and a", "unexpected 'and'"),
        ("(a or b", "ends too early"),
        ("a b", "unexpected 'b'"),
        ("a )", "unexpected ')'"),
    ],
)
def test_bad_k_expressions(expression: str, message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        parse_selector(expression)
