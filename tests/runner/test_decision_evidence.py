"""What counts as evidence that a decision was read the other way (runner/decision_groups.py).

Each of the reference's readings, run as an implementation, is named as its own decision and
no other; an answer that departs from the other reading anywhere, an error answer where the
readings part, or a failure where they agree is no evidence.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ctxconf.reference import READINGS, answers_read_otherwise
from ctxconf.runner.cases import default_case_files, load_case_file
from ctxconf.runner.decision_groups import answers_as_the_other_reading, parent_rules
from ctxconf.runner.engine import RunOptions, run_suite
from ctxconf.runner.reference_impl import ReferenceImplementation
from ctxconf.runner.results import StepResult
from ctxconf.runner.transports import FakeTransport, Message
from ctxconf.specdata.paths import bundled_spec_dir
from tests.bundled_suite import LOOP

REFERENCE = ReferenceImplementation()


def _reading_as_an_implementation(anchor: str) -> Any:
    def answer(request: Message) -> Message:
        case = request["case"]
        texts: list[object] = list(
            answers_read_otherwise(anchor, request["area"], case, LOOP) or []
        )
        # Steps the other reading cannot take are steps this implementation cannot do.
        texts += [{"error": "not a step of this reading"}] * (len(case["steps"]) - len(texts))
        return {"seq": request["seq"], "outputs": texts}

    return lambda: FakeTransport(answer, hello=REFERENCE.hello())


CASES = [c for path in default_case_files(bundled_spec_dir()) for c in load_case_file(path).cases]


@pytest.mark.parametrize("anchor", sorted(READINGS))
def test_each_reading_is_named_as_its_own_decision(anchor: str) -> None:
    # Its cases and those of the rules it refines, where the base behaviour must be seen to work.
    parents = parent_rules(anchor, [case for case in CASES if anchor in case.rules])
    k = " or ".join([anchor, *sorted(parents)])
    results = run_suite(RunOptions(impl="fake", k=k), factory=_reading_as_an_implementation(anchor))
    tagged = [case.name for case in results.cases if anchor in case.rules]
    assert [(item.decision, list(item.cases)) for item in results.footer.read_otherwise] == [
        (anchor, tagged)
    ]


def _step(expected: str, actual: str | None, message: str = "") -> StepResult:
    if message:
        return StepResult(0, {"op": "x"}, expected, None, "fail", message)
    verdict = "pass" if actual == expected else "fail"
    return StepResult(0, {"op": "x"}, expected, actual, verdict)


def test_the_other_readings_text_where_they_part_is_evidence() -> None:
    steps = [_step("a", "a"), _step("b", "B")]
    assert answers_as_the_other_reading(steps, ["a", "B"])


def test_an_error_answer_where_the_readings_part_is_none() -> None:
    steps = [_step("a", "a"), _step("b", None, "the implementation answered: not done")]
    assert not answers_as_the_other_reading(steps, ["a", "B"])


def test_another_text_where_they_part_is_none() -> None:
    assert not answers_as_the_other_reading([_step("a", "a"), _step("b", "b-")], ["a", "B"])


def test_a_failure_where_the_readings_agree_is_none() -> None:
    steps = [_step("a", "a-"), _step("b", "B")]
    assert not answers_as_the_other_reading(steps, ["a", "B"])


def test_steps_past_those_the_other_reading_answers_are_not_looked_at() -> None:
    steps = [_step("a", "A"), _step("b", None, "cannot do it")]
    assert answers_as_the_other_reading(steps, ["A"])
    assert not answers_as_the_other_reading(steps, [])


def test_readings_that_agree_everywhere_are_no_evidence() -> None:
    assert not answers_as_the_other_reading([_step("a", "a")], ["a"])


def test_no_deduplication_answers_as_the_members_as_written_reading_by_accident() -> None:
    # What made a run name ctx.same.args-any-order for an implementation that never
    # deduplicates: its texts are the other reading's on the decision's case.
    case = next(c for c in CASES if c.name == "listing-args-sorted-at-every-depth")
    loop = copy.deepcopy(LOOP)
    loop["context"]["dedupe"]["by_result"] = []
    request = {"seq": 1, "area": case.area, "case": case.data}
    full = ReferenceImplementation(loop=loop).run(request)["outputs"]
    other = answers_read_otherwise("ctx.same.args-any-order", case.area, case.data, LOOP)
    steps = [_step(expected, actual) for expected, actual in zip(case.expect, full, strict=True)]
    assert other == full
    assert answers_as_the_other_reading(steps, other)


def test_a_decision_is_named_only_where_its_parent_rule_works() -> None:
    anchor = "ctx.same.args-any-order"
    assert parent_rules(anchor, [c for c in CASES if anchor in c.rules]) == {
        "ctx.same.args",
        "ctx.same.result",
    }
    reading = run_suite(
        RunOptions(impl="fake", k="ctx.same"), factory=_reading_as_an_implementation(anchor)
    )
    assert [item.decision for item in reading.footer.read_otherwise] == [anchor]
