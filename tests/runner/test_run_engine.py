"""The run itself, against in-memory fake transports: verdicts, expected failures, workers,
selection and the results file as it is written."""

from __future__ import annotations

import _thread
import json
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxconf.errors import CtxconfError
from ctxconf.reference import run_case
from ctxconf.runner.engine import RunOptions, run_suite
from ctxconf.runner.errors import ExpectedFailuresError, ImplementationStartError, UsageError
from ctxconf.runner.reference_impl import ReferenceImplementation
from ctxconf.runner.results import load, schema_problems
from ctxconf.runner.transports import CaseFailure, FakeTransport, Message
from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.userfiles.limits import dumps, parse_exact_float

CASES: list[dict[str, Any]] = [  # every bundled case, in run order, with its area
    {**case, "area": data["area"]}
    for path in sorted((bundled_spec_dir() / "conformance").glob("*.json"))
    for data in [json.loads(path.read_text(encoding="utf-8"), parse_float=parse_exact_float)]
    for case in data["cases"]
]
REFERENCE = ReferenceImplementation()


def _fake(answer: Callable[[Message], Message] | None = None, **kw: Any) -> Callable[[], Any]:
    return lambda: FakeTransport(answer or REFERENCE.run, hello=REFERENCE.hello(), **kw)


def _run(answer: Callable[[Message], Message] | None = None, **options: Any) -> Any:
    factory = options.pop("factory", None) or _fake(answer)
    path = options.pop("results_path", None)
    return run_suite(RunOptions(impl="fake", **options), factory=factory, results_path=path)


def _verdicts(results: Any) -> dict[str, str]:
    return {case.name: case.verdict for case in results.cases}


@pytest.mark.slow
def test_reference_answers_pass_everything(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    results = _run(results_path=path)
    assert [c.name for c in results.cases] == [c["name"] for c in CASES]
    assert set(_verdicts(results).values()) == {"pass"}
    assert results.footer.exit_code == 0
    assert results.footer.totals["pass"] == len(CASES)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert schema_problems(data) == []
    assert load(path).to_json() == results.to_json()
    assert json.loads(dumps(results.to_json())) == data


def _break_step(name: str, index: int) -> Callable[[Message], Message]:
    steps = next(c["steps"] for c in CASES if c["name"] == name)

    def answer(request: Message) -> Message:
        response = REFERENCE.run(request)
        if request["case"]["steps"] == steps:
            response["outputs"][index] += " "
        return response

    return answer


def test_one_wrong_text_fails_that_step_only() -> None:
    name = CASES[0]["name"]
    results = _run(_break_step(name, 1))
    verdicts = _verdicts(results)
    assert verdicts.pop(name) == "fail"
    assert set(verdicts.values()) == {"pass"}
    case = results.cases[0]
    assert [s.verdict for s in case.steps] == ["pass", "fail"]
    assert case.steps[1].actual == CASES[0]["expect"][1] + " "
    assert case.steps[1].expected == CASES[0]["expect"][1]
    assert results.footer.exit_code == 1


@pytest.mark.parametrize(
    ("raised", "verdict", "message"),
    [
        (CaseFailure("timeout", "no answer within 1 s"), "timeout", "no answer within 1 s"),
        (CaseFailure("crash", "exited with code 3", stderr="boom"), "crash", "exited with code 3"),
        (CaseFailure("error", "not JSON"), "error", "not JSON"),
    ],
    ids=["timeout", "crash", "error"],
)
def test_a_failing_transport_costs_one_case(
    raised: CaseFailure, verdict: str, message: str
) -> None:
    def answer(request: Message) -> Message:
        if request["seq"] == 2:
            raise raised
        return REFERENCE.run(request)

    results = _run(answer)
    case = results.cases[2]
    assert (case.verdict, case.message) == (verdict, message)
    assert {s.verdict for s in case.steps} == {"not-run"}
    assert all(s.actual is None for s in case.steps)
    assert case.stderr == raised.stderr
    assert sum(c.verdict == "pass" for c in results.cases) == len(CASES) - 1
    assert results.footer.exit_code == 1


def test_too_few_outputs_keep_what_was_received() -> None:
    def answer(request: Message) -> Message:
        response = REFERENCE.run(request)
        if request["seq"] == 0:
            response["outputs"].pop()
        return response

    case = _run(answer).cases[0]
    assert case.verdict == "error"
    assert case.message == (
        "too few outputs: expected 2 (one per step), got 1: no output for step 1 (read)"
    )
    assert [s.verdict for s in case.steps] == ["pass", "not-run"]


def test_areas_the_implementation_does_not_list_are_skipped_unsent() -> None:
    sent: list[Message] = []

    def answer(request: Message) -> Message:
        sent.append(request)
        return {}

    areas = list(dict.fromkeys(c["area"] for c in CASES))
    hello = {**REFERENCE.hello(), "areas": areas[:1]}
    results = _run(factory=lambda: FakeTransport(answer, hello=hello))
    unlisted = [c for c in results.cases if c.area != areas[0]]
    assert unlisted and {c.verdict for c in unlisted} == {"skipped"}
    assert f"does not list the area {unlisted[0].area!r}" in unlisted[0].message
    assert all(m["area"] == areas[0] for m in sent)
    assert results.footer.exit_code == 1  # the listed area's cases got no outputs


def test_a_run_whose_every_case_was_skipped_fails() -> None:
    # An adapter that skips by mistake judges nothing: that is no green run.
    skip = _run(lambda request: {"seq": request["seq"], "skipped": "not wired up"}, k="stub")
    assert skip.cases and {c.verdict for c in skip.cases} == {"skipped"}
    assert skip.footer.exit_code == 1
    # One case judged and passing is enough for the others' skips not to fail the run.
    first = [True]

    def skip_all_but_one(request: Message) -> Message:
        if first.pop() if first else False:
            return REFERENCE.run(request)
        return {"seq": request["seq"], "skipped": "not wired up"}

    some = _run(skip_all_but_one, k="stub")
    assert [c.verdict for c in some.cases].count("pass") == 1
    assert some.footer.exit_code == 0


def test_a_hello_listing_none_of_the_areas_runs_nothing_and_says_why() -> None:
    made: list[FakeTransport] = []
    warnings: list[str] = []

    def factory() -> FakeTransport:
        made.append(FakeTransport(REFERENCE.run, hello={**REFERENCE.hello(), "areas": ["Context"]}))
        return made[-1]

    with pytest.raises(UsageError, match="lists 'Context', none of the areas") as raised:
        run_suite(RunOptions(impl="fake"), factory=factory, on_warning=warnings.append)
    assert "no case ran" in raised.value.message
    assert made[0].requests == [] and made[0].closed
    assert len(warnings) == 1 and "'Context', which is no area" in warnings[0]


@pytest.mark.parametrize(
    ("hello", "message"),
    [
        ({"protocol": 2}, '"protocol" is 2'),
        (None, "did not answer hello: went away"),
    ],
    ids=["bad-hello", "no-hello"],
)
def test_no_usable_hello_stops_the_run(hello: Message | None, message: str) -> None:
    def gone() -> Message:
        raise CaseFailure("crash", "went away")

    factory = lambda: FakeTransport(REFERENCE.run, hello=hello or gone)  # noqa: E731
    with pytest.raises(ImplementationStartError, match=message):
        _run(factory=factory)


# -- expected failures -------------------------------------------------------------------------


def _yaml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "xfail.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_expected_failures_by_name_and_by_rule(tmp_path: Path) -> None:
    broken = CASES[0]["name"]
    rule = next(r for r in CASES[3]["rules"] if r not in CASES[0]["rules"])
    listed = _yaml(tmp_path, f"{broken}: being fixed\n{rule}: not done yet\n")
    results = _run(_break_step(broken, 0), expected_failures=listed)
    by_name = {c.name: c for c in results.cases}
    assert by_name[broken].verdict == "expected-failure"
    assert by_name[broken].expected_failure.reason == "being fixed"
    assert by_name[broken].message == ""  # its own message, not the reason
    with_rule = [c for c in results.cases if rule in c.rules]
    assert with_rule and all(c.verdict == "unexpected-pass" for c in with_rule)
    for case in with_rule:
        assert f"under {rule!r} ({listed}:2: not done yet)" in case.message
        assert "narrow it to the names of the cases" in case.message
    assert results.footer.exit_code == 1
    assert results.header.options.expected_failures == str(listed)


def test_expected_failures_that_fail_leave_the_run_green(tmp_path: Path) -> None:
    broken = CASES[0]["name"]
    results = _run(_break_step(broken, 0), expected_failures=_yaml(tmp_path, f"{broken}: later\n"))
    assert results.footer.totals["expected-failure"] == 1
    assert results.footer.exit_code == 0


@pytest.mark.parametrize(
    ("text", "places"),
    [
        ("- a\n- b\n", ["xfail.yaml:1:1: expected a mapping"]),
        ("a-case: [x]\nBad Name: y\nother: ''\nn: 3\n",
         ["xfail.yaml: 4 problems:",
          "xfail.yaml:1:9: the reason for 'a-case' must be a string",
          "xfail.yaml:2:11: 'Bad Name' is neither a case name",
          "xfail.yaml:3:8: the reason for 'other' is empty",
          "xfail.yaml:4:4: the reason for 'n' must be a string"]),
        ("ctx.stub:\n  reason: ''\n  strict: maybe\n  why: x\n",
         ["xfail.yaml:2:11: 'ctx.stub' needs a reason",
          "xfail.yaml:3:11: strict must be true or false",
          "xfail.yaml:4:8: 'ctx.stub' has an unknown field 'why'"]),
        ("a: b\nc: d\n  e: f\n", ["xfail.yaml:3:4: not valid YAML"]),
        ("x-y: one\nx-y: two\n", ["xfail.yaml:2:1: the key 'x-y' is given twice"]),
    ],
    ids=["list", "many-problems", "mapping-form", "syntax", "duplicate"],
)
def test_bad_expected_failures_files(tmp_path: Path, text: str, places: list[str]) -> None:
    path = _yaml(tmp_path, text)
    with pytest.raises(Exception) as raised:
        _run(expected_failures=path)
    message = str(raised.value)
    assert type(raised.value).__name__ == "ExpectedFailuresError"
    for place in places:
        assert f"{tmp_path}/{place}" in message


def test_unknown_entries_are_warned_about(tmp_path: Path) -> None:
    warnings: list[str] = []
    path = _yaml(tmp_path, "no-such-case: gone\n")
    run_suite(RunOptions(impl="fake", expected_failures=path), factory=_fake(),
              on_warning=warnings.append)
    assert warnings == [f"{path}:1: 'no-such-case' names no case and no rule of the case files: "
                        "it has no effect"]


# -- equivalent diffs --------------------------------------------------------------------------


def _edit_case_file(tmp_path: Path) -> Path:
    case = {"name": "swap-two-lines", "description": "d", "rules": ["ctx.edit.diff"],
            "steps": [{"op": "edit", "id": "#e001", "path": "f.txt", "before": "x\ny\n",
                       "after": "y\nx\n"}]}
    case["expect"] = run_case(case)
    path = tmp_path / "edits.json"
    path.write_text(json.dumps({"area": "context", "version": "3.1.0", "description": "d",
                                "cases": [case]}), encoding="utf-8")
    return path


def _other_diff(request: Message) -> Message:
    response = REFERENCE.run(request)
    bracket = response["outputs"][0].split("\n")[0]
    return {**response, "outputs": [bracket + "\n@@ -1,2 +1,2 @@\n+y\n x\n-y"]}


@pytest.mark.parametrize(
    ("accept", "verdict", "code"),
    [(False, "equivalent-diff", 1), (True, "pass", 0)],
    ids=["strict", "accept"],
)
def test_equivalent_diffs(tmp_path: Path, accept: bool, verdict: str, code: int) -> None:
    results = _run(_other_diff, case_files=(_edit_case_file(tmp_path),),
                   accept_equivalent_diffs=accept)
    (case,) = results.cases
    assert case.verdict == verdict
    assert case.steps[0].verdict == "equivalent-diff"
    assert results.footer.exit_code == code


# -- workers, selection, the file ---------------------------------------------------------------


def test_workers_share_the_cases_and_results_keep_case_order() -> None:
    made: list[FakeTransport] = []
    threads: set[int] = set()

    def answer(request: Message) -> Message:
        threads.add(threading.get_ident())
        time.sleep(random.uniform(0, 0.004))
        return REFERENCE.run(request)

    def factory() -> FakeTransport:
        made.append(FakeTransport(answer, hello=REFERENCE.hello()))
        return made[-1]

    results = _run(factory=factory, jobs=3)
    assert [c.name for c in results.cases] == [c["name"] for c in CASES]
    assert set(_verdicts(results).values()) == {"pass"}
    assert len(made) == 3 and all(t.closed for t in made)
    assert len(threads) == 3
    seqs = sorted(r["seq"] for t in made for r in t.requests)
    assert seqs == list(range(len(CASES)))


@pytest.mark.parametrize(
    ("k", "check"),
    [
        ("stub", lambda c: any("stub" in n for n in [c["name"], *c["rules"]])),
        ("not stub", lambda c: not any("stub" in n for n in [c["name"], *c["rules"]])),
        ("ctx.cap and not long", lambda c: any("ctx.cap" in r for r in c["rules"])
         and not any("long" in n for n in [c["name"], *c["rules"]])),
        ("compaction or recall", lambda c: any(w in n for n in [c["name"], *c["rules"]]
                                               for w in ("compaction", "recall"))),
    ],
    ids=["word", "not", "and-not", "or"],
)
def test_k_chooses_by_name_or_rule(k: str, check: Callable[[dict[str, Any]], bool]) -> None:
    wanted = [c["name"] for c in CASES if check(c)]
    assert 0 < len(wanted) < len(CASES)
    assert [c.name for c in _run(k=k).cases] == wanted


def test_area_filter() -> None:
    known = sorted({c["area"] for c in CASES})
    with pytest.raises(UsageError, match="no such area") as raised:
        _run(areas=(known[0][:-1] + "x" + known[0][-1],))
    assert all(area in raised.value.message for area in known)
    assert f"did you mean {known[0]}?" in raised.value.message
    for area in {c["area"] for c in CASES}:
        wanted = [c["name"] for c in CASES if c["area"] == area]
        assert [c.name for c in _run(areas=(area,)).cases] == wanted


@pytest.mark.parametrize(
    ("options", "message"),
    [({"jobs": 0}, "-j 0"), ({"timeout": 0}, "--timeout 0"), ({"k": "a and"}, "ends too early"),
     ({"spec_dir": Path("/no/such/spec")}, "no such folder"),
     ({"timeout": float("inf")}, "--timeout inf"), ({"timeout": float("nan")}, "--timeout nan"),
     ({"timeout": 1e300}, "at most 86400"), ({"timeout": -1.0}, "--timeout -1")],
    ids=["jobs", "timeout", "k", "spec", "timeout-inf", "timeout-nan", "timeout-huge",
         "timeout-negative"],
)
def test_unusable_options(options: dict[str, Any], message: str) -> None:
    with pytest.raises(CtxconfError, match=message):
        _run(**options)


def test_an_interrupted_run_keeps_the_cases_done_and_marks_its_footer(tmp_path: Path) -> None:
    def answer(request: Message) -> Message:
        if request["seq"] == 3:
            raise KeyboardInterrupt
        return REFERENCE.run(request)

    path = tmp_path / "results.json"
    results = _run(answer, results_path=path)
    assert len(results.cases) == 3
    assert results.footer.interrupted and results.footer.exit_code == 130
    assert load(path).to_json() == results.to_json()
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]  # no temporary file left


def test_the_previous_results_stay_until_the_run_ends(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text("previous", encoding="utf-8")
    seen: list[str] = []

    def answer(request: Message) -> Message:
        seen.append(path.read_text(encoding="utf-8"))
        if request["seq"] == 2:
            raise RuntimeError("a runner bug")  # not an interruption: nothing is kept
        return REFERENCE.run(request)

    with pytest.raises(RuntimeError):
        _run(answer, results_path=path)
    assert seen == ["previous"] * 3
    assert path.read_text(encoding="utf-8") == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_an_interrupted_run_with_workers_starts_no_more_cases(tmp_path: Path) -> None:
    made: list[FakeTransport] = []

    def answer(request: Message) -> Message:
        if request["seq"] == 3:
            _thread.interrupt_main()  # as Ctrl-C does: in the main thread, not a worker
        time.sleep(0.005)
        return REFERENCE.run(request)

    def factory() -> FakeTransport:
        made.append(FakeTransport(answer, hello=REFERENCE.hello()))
        return made[-1]

    results = _run(factory=factory, jobs=2, results_path=tmp_path / "results.json")
    assert results.footer.interrupted
    assert load(tmp_path / "results.json").footer.interrupted
    sent = sum(len(t.requests) for t in made)
    assert sent < 10 < len(CASES)
    assert all(t.closed for t in made)


def test_a_k_that_selects_nothing_runs_nothing_and_suggests_a_name() -> None:
    word = next(part for part in CASES[0]["name"].split("-") if len(part) > 3)
    with pytest.raises(UsageError, match=f"selects none of the {len(CASES)} cases") as raised:
        _run(k=word + word[-1])
    assert "no case ran" in raised.value.message
    assert f"did you mean {word}" in raised.value.message


def test_an_output_that_is_an_error_fails_its_step_and_the_others_are_judged() -> None:
    case = next(c for c in CASES if len(c["steps"]) >= 3)

    def answer(request: Message) -> Message:
        response = REFERENCE.run(request)
        if request["case"]["steps"] == case["steps"]:
            response["outputs"][1] = {"error": "recall is not done yet"}
            response["outputs"][2] += "x"
        return response

    result = next(c for c in _run(answer).cases if c.name == case["name"])
    assert result.verdict == "fail"
    assert [s.verdict for s in result.steps][:3] == ["pass", "fail", "fail"]
    assert result.steps[1].message == "the implementation answered: recall is not done yet"
    assert result.steps[1].actual is None
    assert result.steps[2].message == "" and result.steps[2].actual == case["expect"][2] + "x"


def test_the_surplus_of_too_many_outputs_is_in_the_message() -> None:
    def answer(request: Message) -> Message:
        response = REFERENCE.run(request)
        if request["seq"] == 0:
            response["outputs"] += ["surplus one", "surplus two"]
        return response

    case = _run(answer).cases[0]
    assert case.verdict == "error"
    assert "too many outputs" in case.message
    assert "'surplus one'; 'surplus two'" in case.message


def test_a_rule_prefix_covers_the_anchors_below_it(tmp_path: Path) -> None:
    rule = next(r for c in CASES for r in c["rules"] if r.count(".") >= 2)
    prefix = rule.rsplit(".", 1)[0]
    under = [c["name"] for c in CASES if any(r == prefix or r.startswith(prefix + ".")
                                             for r in c["rules"])]
    results = _run(expected_failures=_yaml(tmp_path, f"{prefix}: later\n"))
    verdicts = _verdicts(results)
    assert {verdicts[name] for name in under} == {"unexpected-pass"}
    first = next(c for c in results.cases if c.name == under[0])
    assert first.expected_failure.entry == prefix


def test_a_rule_entry_that_is_not_strict_lets_its_cases_pass(tmp_path: Path) -> None:
    broken = CASES[0]["name"]
    rule = CASES[0]["rules"][0]
    listed = _yaml(tmp_path, f"{rule}:\n  reason: half done\n  strict: false\n")
    results = _run(_break_step(broken, 0), expected_failures=listed)
    verdicts = _verdicts(results)
    assert verdicts.pop(broken) == "expected-failure"
    assert set(verdicts.values()) == {"pass"}
    assert results.footer.exit_code == 0


def test_a_case_name_entry_cannot_be_lenient(tmp_path: Path) -> None:
    listed = _yaml(tmp_path, f"{CASES[0]['name']}:\n  reason: x\n  strict: false\n")
    with pytest.raises(ExpectedFailuresError, match=r"xfail\.yaml:3:11: .* always strict"):
        _run(expected_failures=listed)


class _InterruptedWhileClosing(FakeTransport):
    def close(self) -> None:
        super().close()
        raise KeyboardInterrupt  # the signal comes as the implementation is being stopped


def test_a_signal_while_the_implementations_stop_is_an_interruption(tmp_path: Path) -> None:
    made: list[FakeTransport] = []

    def factory() -> FakeTransport:
        made.append(_InterruptedWhileClosing(REFERENCE.run, hello=REFERENCE.hello()))
        return made[-1]

    path = tmp_path / "results.json"
    results = _run(factory=factory, jobs=2, results_path=path)
    assert all(t.closed for t in made) and len(made) == 2  # the second closed all the same
    assert results.footer.interrupted and len(results.cases) == len(CASES)
    assert load(path).footer.interrupted
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_an_interruption_before_hello_keeps_the_previous_results(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text("previous", encoding="utf-8")

    def hello() -> Message:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _run(factory=lambda: FakeTransport(REFERENCE.run, hello=hello), results_path=path)
    assert path.read_text(encoding="utf-8") == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]
