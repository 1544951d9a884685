"""`ctxconf fuzz` as a user runs it: the reference agrees with itself, every planted fault in
tests/faulty/ is found, and what is found becomes a case that fails the faulty implementation
and passes the reference."""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings

from ctxconf.fuzzing import fuzz as fuzz_module
from ctxconf.fuzzing.findings import describe_finding
from ctxconf.fuzzing.fuzz import (
    RULES_GUESSED,
    Finding,
    FuzzOptions,
    batch_seed,
    compare,
    document_text,
    finding_document,
    fuzz,
    guess_rules,
)
from ctxconf.fuzzing.strategies import ops_of, sessions_of
from ctxconf.reference import AREAS, ContextConfig, run_area_case, run_case
from ctxconf.reference.texts import read_loop
from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.spectext.rules import load_rules
from ctxconf.spectools.validate import validate_files
from tests.cli import Done
from tests.cli import ctxconf as run_ctxconf
from tests.paths import ROOT

pytestmark = pytest.mark.slow  # every test runs a fuzzing search

REPO = ROOT
# Faults of the context area; those of the prefix area are named prefix_*, those of the history
# area history_* (tests/reference/history/test_history_fuzz.py).
FAULTY = sorted(p.stem for p in (REPO / "tests" / "faulty").glob("[!_]*.py")
                if not p.stem.startswith(("prefix_", "history_")))
PREFIX_FAULTY = sorted(p.stem for p in (REPO / "tests" / "faulty").glob("prefix_*.py"))
CONFIG = ContextConfig.load()


def ctxconf(*args: str | Path, cwd: Path, expect: int) -> Done:
    """Run `ctxconf` in `cwd`, with this checkout importable (for python:tests.…)."""
    return run_ctxconf(*args, cwd=cwd, expect=expect, importable=[REPO])


def written_case_file(folder: Path) -> Path:
    files = sorted(folder.glob("fuzz-*.json"))
    assert len(files) == 1, files
    return files[0]


def test_the_reference_agrees_with_itself(tmp_path: Path) -> None:
    done = ctxconf("fuzz", "--impl", "reference", "--examples", "300", "--seed", "2024",
                      cwd=tmp_path, expect=0)
    assert "seed 2024" in done.stdout
    assert "no disagreement in 300 sessions" in done.stdout, str(done)
    assert not list(tmp_path.glob("reports/*.json"))


# docs/fuzzing.md's sample finding: this fault, found with this seed.
SAMPLE_FAULT = "stops_stubbing"
# Each planted fault's search: a seed whose first 150 sessions hold a disagreement. The bound is
# the count of sessions, not the clock, so the same search runs on any machine; a fault that
# stopped being found within it fails the test as surely as a longer search would.
SEARCH = {"stops_stubbing": "1", "cap_newlines": "9", "splitlines": "8"}
EXAMPLES = "150"
_COUNTS = re.compile(r"after \d+ sessions, shrunk in \d+ more runs \([\d.]+ s\)")


def _sample_lines() -> list[str]:
    """The sample of docs/fuzzing.md from the line after its command to its `wrote` line, the
    counts and time of its search left out (they are this machine's and Hypothesis's)."""
    text = (REPO / "docs" / "fuzzing.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n\$ ctxconf fuzz (?P<args>[^\n]*)\n(?P<body>.*?)```", text, re.S)
    assert block, "docs/fuzzing.md has no sample finding"
    assert block["args"].split() == [
        "--impl", f"python:tests.faulty.{SAMPLE_FAULT}", "--seed", SEARCH[SAMPLE_FAULT],
        "--examples", EXAMPLES,
    ]  # fmt: skip
    lines = block["body"].split("\n")
    return [_COUNTS.sub("after N", line) for line in lines[: lines.index("") + 1]] + [
        line for line in lines if line.startswith(("the session", "  ", "step "))
    ]


@pytest.mark.parametrize("fault", [f for f in FAULTY if f != "crash_on_recall"])
def test_a_planted_fault_is_found_shrunk_and_becomes_a_failing_case(
    fault: str, tmp_path: Path
) -> None:
    impl = f"python:tests.faulty.{fault}"
    # Bounded by examples and the seed, not the clock: the same search on any machine.
    done = ctxconf("fuzz", "--impl", impl, "--seed", SEARCH[fault], "--examples", EXAMPLES,
                      "--out", tmp_path, cwd=tmp_path, expect=1)
    assert "disagreement found after" in done.stdout
    assert re.search(r"^step \d+ \(\w+\) differs:$", done.stdout, re.MULTILINE), str(done)
    if fault == SAMPLE_FAULT:  # the search docs/fuzzing.md shows: its output as written there
        lines = done.stdout.split("\n")
        shown = [_COUNTS.sub("after N", line) for line in lines[: lines.index("") + 1]] + [
            line for line in lines if line.startswith(("the session", "  ", "step "))
        ]
        assert shown == _sample_lines(), str(done)
    path = written_case_file(tmp_path)
    assert validate_files([path]) == []
    document = json.loads(path.read_text(encoding="utf-8"))
    (case,) = document["cases"]
    assert case["name"] == path.stem and case["name"].startswith(f"fuzz-{SEARCH[fault]}-")
    assert len(case["steps"]) <= 4, "the session is shrunk"
    assert case["expect"] == run_case(case, CONFIG), "the expected texts are the reference's"
    assert "review" in case["description"]
    # The case is ready for the suite: it fails the faulty implementation, passes the reference.
    results = tmp_path / "results.json"
    ctxconf("run", "--impl", impl, "--cases", path, "--json", results, cwd=tmp_path, expect=1)
    ctxconf("run", "--impl", "reference", "--cases", path, "--json", results, cwd=tmp_path,
            expect=0)


def test_the_reference_agrees_with_itself_on_prefix_sessions(tmp_path: Path) -> None:
    done = ctxconf("fuzz", "--area", "prefix", "--impl", "reference", "--examples", "200",
                      "--seed", "2024", cwd=tmp_path, expect=0)
    assert "area prefix" in done.stdout
    assert "no disagreement in 200 sessions" in done.stdout, str(done)
    assert not list(tmp_path.glob("reports/*.json"))


@pytest.mark.parametrize("fault", PREFIX_FAULTY)
def test_a_planted_prefix_fault_is_found_and_becomes_a_failing_case(
    fault: str, tmp_path: Path
) -> None:
    impl = f"python:tests.faulty.{fault}"
    done = ctxconf("fuzz", "--area", "prefix", "--impl", impl, "--seed", "1",
                      "--examples", "500", "--out", tmp_path, cwd=tmp_path, expect=1)
    assert "disagreement found after" in done.stdout, str(done)
    path = written_case_file(tmp_path)
    assert validate_files([path]) == []
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["area"] == "prefix"
    (case,) = document["cases"]
    assert case["steps"][0]["op"] == "start"
    assert case["expect"] == run_area_case("prefix", case, read_loop())
    assert any(rule.startswith("pfx.") for rule in case["rules"])
    results = tmp_path / "results.json"
    ctxconf("run", "--impl", impl, "--cases", path, "--json", results, cwd=tmp_path, expect=1)
    ctxconf("run", "--impl", "reference", "--cases", path, "--json", results, cwd=tmp_path,
            expect=0)


def test_an_implementation_without_the_area_cannot_be_fuzzed_in_it(tmp_path: Path) -> None:
    done = ctxconf("fuzz", "--area", "prefix", "--impl", "python:tests.faulty.splitlines",
                      cwd=tmp_path, expect=2)
    assert "does not list the area 'prefix'" in done.stderr, str(done)


def test_an_implementation_that_crashes_disagrees_and_is_shrunk_too(tmp_path: Path) -> None:
    impl = "python:tests.faulty.crash_on_recall"
    done = ctxconf("fuzz", "--impl", impl, "--seed", "3", "--out", tmp_path, cwd=tmp_path,
                      expect=1)
    assert "the implementation failed the session: crash:" in done.stdout
    (case,) = json.loads(written_case_file(tmp_path).read_text(encoding="utf-8"))["cases"]
    assert [step["op"] for step in case["steps"]] == ["recall"]
    assert "ctx.recall.window" in case["rules"]
    ctxconf("run", "--impl", impl, "--cases", written_case_file(tmp_path), "--json",
            tmp_path / "r.json", cwd=tmp_path, expect=1)


def test_the_same_seed_finds_the_same_session_whatever_else_is_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    found = []
    for run in ("first", "second"):
        out = tmp_path / run
        out.mkdir()
        if run == "second":  # beside it, a module of the caller's own full of literals
            (tmp_path / "callers_literals.py").write_text(LITERALS, encoding="utf-8")
            monkeypatch.syspath_prepend(str(tmp_path))
            request.addfinalizer(lambda: sys.modules.pop("callers_literals", None))
            importlib.import_module("callers_literals")
        # The planted fault's own bounded search (SEARCH): any search that finds one will do.
        done = ctxconf("fuzz", "--impl", "python:tests.faulty.stops_stubbing",
                       "--seed", SEARCH["stops_stubbing"], "--examples", EXAMPLES,
                       "--out", out, cwd=tmp_path, expect=1)  # fmt: skip
        found.append((written_case_file(out).read_text(encoding="utf-8"),
                       done.stdout.split("\n")[1].split(" (")[0]))
    assert found[0] == found[1]


# A module's worth of string literals, some with newlines: Hypothesis would favour them in the
# texts a session draws, were they seen.
LITERALS = "WORDS = [\n" + "".join(
    f"    {(f'line {n}' + chr(10)) * (n % 4) + f'w{n}'!r},\n" for n in range(900)
) + "]\n"


def test_the_default_out_is_reports(tmp_path: Path) -> None:
    ctxconf("fuzz", "--impl", "python:tests.faulty.splitlines", "--seed", SEARCH["splitlines"],
            "--examples", EXAMPLES, cwd=tmp_path, expect=1)
    assert written_case_file(tmp_path / "reports").suffix == ".json"


def test_max_time_stops_generating_and_says_how_many_ran(tmp_path: Path) -> None:
    # A millisecond is up before the first session on any machine, however loaded (a slower
    # machine only makes it surer); when sessions stop is test_sessions_after_the_time_is_up…'s.
    done = ctxconf("fuzz", "--impl", "reference", "--max-time", "0.001", "--seed", "9",
                      cwd=tmp_path, expect=0)
    assert re.search(r"no disagreement in \d+ sessions? \(time was up\)", done.stdout), str(done)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--impl", "nonsense"], "expected reference, python:MODULE"),
        (["--impl", "python:no_such_module_here"], "cannot import the module"),
        (["--impl", f"cmd:{sys.executable} -c 'import sys; sys.exit(3)'"], "did not answer hello"),
        (["--impl", "reference", "--examples", "0"], "--examples 0"),
        (["--impl", "reference", "--max-time", "0"], "--max-time 0"),
        (["--impl", "reference", "--timeout", "-1"], "--timeout -1"),
        (["--impl", "reference", "--seed", "-4"], "--seed -4"),
        (["--impl", "reference", "--area", "nowhere"], "invalid choice: 'nowhere'"),
        (["--impl", "reference", "--out", "no/such/folder/x.json"], "does not exist"),
        (["--impl", "reference", "--ops", "read,bogus"],
         "--ops read,bogus: no op bogus in the area context; its ops are read, output, edit"),
        (["--impl", "reference", "--area", "prefix", "--skip-ops", "read"],
         "--skip-ops read: no op read in the area prefix; its ops are user, date"),
        (["--impl", "reference", "--ops", "read,edit", "--skip-ops", "edit,read"],
         "leave no op of the area context to generate"),
    ],
    ids=["bad-spec", "no-module", "no-hello", "no-examples", "no-time", "no-timeout",
         "negative-seed", "bad-area", "no-out-folder", "unknown-op", "op-of-another-area",
         "no-op-left"],
)
def test_unusable_arguments_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    done = ctxconf("fuzz", *args, cwd=tmp_path, expect=2)
    assert message in done.stderr, str(done)


def test_ops_an_implementation_lacks_are_left_out(tmp_path: Path) -> None:
    # It crashes on every recall: with recall left out there is nothing to find.
    impl = "python:tests.faulty.crash_on_recall"
    done = ctxconf("fuzz", "--impl", impl, "--seed", "1", "--examples", "150",
                      "--skip-ops", "recall", cwd=tmp_path, expect=0)
    assert "no disagreement in 150 sessions" in done.stdout, str(done)
    done = ctxconf("fuzz", "--impl", impl, "--seed", "1", "--examples", "150",
                      "--ops", "read, output,recall", "--out", tmp_path, cwd=tmp_path, expect=1)
    assert "ops read,output,recall;" in done.stdout, str(done)
    steps = json.loads(written_case_file(tmp_path).read_text())["cases"][0]["steps"]
    assert steps[-1]["op"] == "recall"


# -- the library, in process -----------------------------------------------------------------


@pytest.mark.parametrize("area", AREAS)
def test_sessions_hold_only_the_ops_chosen(area: str) -> None:
    chosen = set(ops_of(area)[1:4])
    seen: set[str] = set()

    @settings(max_examples=60, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(sessions_of(area, chosen))
    def check(case: dict[str, Any]) -> None:
        ops = [step["op"] for step in case["steps"] if step["op"] != "start"]
        seen.update(ops)
        assert set(ops) <= chosen

    check()
    assert seen == chosen


def test_a_long_search_runs_in_batches_each_its_own_hypothesis_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Hypothesis keeps every session of a run; a long --max-time runs many short runs instead.
    monkeypatch.setattr(fuzz_module, "BATCH", 10)
    runs: list[int] = []
    real_batch = fuzz_module._search_batch

    def counting(*args: Any) -> None:
        runs.append(args[2])  # its seed
        real_batch(*args)

    monkeypatch.setattr(fuzz_module, "_search_batch", counting)
    ran = []

    def implementation(case: dict[str, Any]) -> list[str]:
        ran.append(case)
        return run_case(case, CONFIG)

    outcome = fuzz(implementation, FuzzOptions(examples=25, seed=7), CONFIG)
    assert outcome.finding is None and outcome.examples == len(ran) == 25
    assert runs == [7, batch_seed(7, 1), batch_seed(7, 2)] and len(set(runs)) == 3


def test_a_disagreement_in_a_later_batch_is_found_and_shrunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fuzz_module, "BATCH", 5)
    sessions_run = 0

    def late_flip(case: dict[str, Any]) -> list[str]:
        nonlocal sessions_run
        sessions_run += 1
        texts = run_case(case, CONFIG)
        return _flip_stub(case) if sessions_run > 12 else texts

    outcome = fuzz(late_flip, FuzzOptions(examples=1000, seed=3), CONFIG)
    assert outcome.finding is not None and outcome.examples > 12
    assert [s["op"] for s in outcome.finding.case["steps"]] == ["read", "read"]


def _flip_stub(case: dict[str, Any]) -> list[str]:
    return [text.replace("Unchanged since", "Same as") for text in run_case(case, CONFIG)]


def test_fuzz_through_the_seam_finds_a_minimal_stub_disagreement() -> None:
    outcome = fuzz(_flip_stub, FuzzOptions(examples=1000, seed=3), CONFIG)
    finding = outcome.finding
    assert finding is not None and finding.actual is not None
    assert [s["op"] for s in finding.case["steps"]] == ["read", "read"]
    assert finding.differing == (1,)
    assert guess_rules(finding, CONFIG)[0] == "ctx.stub.unchanged"


def test_an_equal_implementation_has_no_finding_and_counts_its_sessions() -> None:
    outcome = fuzz(lambda case: run_case(case, CONFIG), FuzzOptions(examples=25, seed=1), CONFIG)
    assert outcome.finding is None
    assert outcome.examples == 25 and outcome.shrink_runs == 0


def test_sessions_after_the_time_is_up_are_not_run() -> None:
    ran = []
    ticks = iter(range(10**6))

    def implementation(case: dict[str, Any]) -> list[str]:
        ran.append(case)
        return run_case(case, CONFIG)

    # Each reading of the clock is one second later: four sessions run, then the time is up.
    outcome = fuzz(implementation, FuzzOptions(examples=200, seed=1, max_time=5), CONFIG,
                   clock=lambda: float(next(ticks)))
    assert outcome.timed_out and outcome.finding is None
    assert len(ran) == outcome.examples == 4


@pytest.mark.parametrize(
    "steps, rule",
    [
        ([{"op": "output", "tool": "list", "args": {}, "text": "a"},
          {"op": "output", "tool": "list", "args": {}, "text": "a"}], "ctx.same.result"),
        ([{"op": "read", "path": "a.md", "content": "a\n"}, {"op": "compact"}],
         "ctx.compact.table"),
        ([{"op": "edit", "path": "a.md", "before": "a\n", "after": "b\n"}], "ctx.edit.diff"),
        ([{"op": "recall", "target": "#0001"}], "ctx.recall.window"),
        ([{"op": "read", "path": "a.md", "content": "a\u2028b\n"}], "ctx.text.lines"),
        ([{"op": "delete", "path": "a.md"}], "ctx.edit.deleted"),
    ],
    ids=["same-result", "compaction", "diff", "recall", "line-ends", "by-op"],
)
def test_rules_are_guessed_from_the_differing_step(steps: list[dict[str, Any]], rule: str) -> None:
    case = {"steps": steps}
    expected = tuple(run_case(case, CONFIG))
    finding = Finding(case, expected, (*expected[:-1], "[#0000] something else"), (len(steps) - 1,))
    assert rule in guess_rules(finding, CONFIG)


@pytest.mark.parametrize(("count", "heading"), [(1, "the session (1 step):"),
                                              (2, "the session (2 steps):")])
def test_a_finding_counts_its_steps_in_words(count: int, heading: str) -> None:
    case = {"steps": [{"op": "output", "tool": "bash", "args": {}, "text": "a"}] * count}
    expected = tuple(run_case(case, CONFIG))
    finding = Finding(case, expected, (*expected[:-1], "[#0000] something else"), (count - 1,))
    assert describe_finding(finding)[0] == heading


def test_every_rule_it_can_guess_is_a_rule_of_the_spec() -> None:
    assert RULES_GUESSED <= set(load_rules(bundled_spec_dir()))


def test_a_finding_file_survives_yaml_and_keeps_every_character() -> None:
    content = "\u2028\u2029\x85\x7f\ufeff\x0b\x0c\r\t😀 é\n"
    case = {"limits": {"max_lines": 2, "head_lines": 1, "tail_lines": 1},
            "steps": [{"op": "read", "path": "ü|.md", "content": content}]}
    finding = compare(case, lambda c: ["[#0001] no"], CONFIG)
    assert finding is not None
    document = finding_document(finding, 7, "python:x", CONFIG)
    text = document_text(document)
    assert not re.search("[\u2028\u2029\x85\x7f\ufeff]", text), "escaped in the file"
    assert json.loads(text) == document
    assert yaml.safe_load(text) == document, "add-case reads the file as YAML"
