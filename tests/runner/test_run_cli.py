"""`ctxconf run` as users run it: the reference over each transport, the files it writes, a
deliberately wrong implementation, expected failures, equivalent diffs and unusable input."""

from __future__ import annotations

import importlib.util
import json
import os
import pty
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ctxconf.cli import main
from ctxconf.reference import run_case
from ctxconf.runner.results import load
from ctxconf.specdata.paths import bundled_spec_dir, schemas_dir
from tests.cli import Done, ctxconf
from tests.paths import FAUX

CASES: list[dict[str, Any]] = [  # every bundled case, in run order, with its area
    {**case, "area": data["area"]}
    for path in sorted((bundled_spec_dir() / "conformance").glob("*.json"))
    for data in [json.loads(path.read_text(encoding="utf-8"))]
    for case in data["cases"]
]
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed")
HAS_REPORT = importlib.util.find_spec("ctxconf.runner.report") is not None


def _summary(done: Done) -> tuple[int, int]:
    last = done.stdout.rstrip("\n").split("\n")[-1]
    match = SUMMARY.match(last)
    assert match, done
    return int(match.group(1)), int(match.group(2))


def _check_files(json_path: Path, junit_path: Path | None = None) -> None:
    schema = json.loads((schemas_dir() / "results.schema.json").read_text(encoding="utf-8"))
    data = json.loads(json_path.read_text(encoding="utf-8"))
    assert list(Draft202012Validator(schema).iter_errors(data)) == []
    results = load(json_path)
    assert [c.name for c in results.cases] == [c["name"] for c in CASES]
    assert results.footer.totals["pass"] == len(CASES)
    if junit_path is not None:
        root = ET.parse(junit_path).getroot()
        assert (root.get("tests"), root.get("failures"), root.get("errors")) == (
            str(len(CASES)), "0", "0"
        )
        suites = [suite.get("name") for suite in root.iter("testsuite")]
        assert suites == list(dict.fromkeys(c["area"] for c in CASES))  # one per area
        names = [(t.get("classname"), t.get("name")) for t in root.iter("testcase")]
        assert names == [(c["area"], c["name"]) for c in CASES]


@pytest.mark.slow
def test_reference_in_process(tmp_path: Path) -> None:
    done = ctxconf("run", "--impl", "reference", cwd=tmp_path)
    assert _summary(done) == (len(CASES), 0)
    _check_files(tmp_path / "reports" / "results.json")
    header = load(tmp_path / "reports" / "results.json").header
    assert header.impl == "reference"
    assert header.spec_dir == str(bundled_spec_dir().resolve())
    assert (tmp_path / "reports" / "report.html").exists() == HAS_REPORT
    if not HAS_REPORT:
        assert "note: no HTML report" in done.stderr


@pytest.mark.slow
def test_reference_over_json_lines(tmp_path: Path) -> None:
    impl = f"cmd:{sys.executable} -m ctxconf serve --stdio"
    done = ctxconf("run", "--impl", impl, "--json", tmp_path / "r.json",
                   "--junit", tmp_path / "junit.xml", cwd=tmp_path)
    assert _summary(done) == (len(CASES), 0)
    _check_files(tmp_path / "r.json", tmp_path / "junit.xml")
    assert load(tmp_path / "r.json").header.impl == impl
    assert not (tmp_path / "reports").exists()  # only what was asked for


@pytest.fixture
def served() -> Iterator[str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "ctxconf", "serve", "--http", "127.0.0.1:0"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.terminate()
        server.wait()
        if server.stdout is not None:
            server.stdout.close()


@pytest.mark.slow
def test_reference_over_http_with_two_workers(tmp_path: Path, served: str) -> None:
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", served) and not served.endswith(":0")
    done = ctxconf("run", "--impl", served, "-j", "2", "--json", tmp_path / "r.json",
                   "--junit", tmp_path / "junit.xml", "--html", tmp_path / "r.html",
                   cwd=tmp_path)
    assert _summary(done) == (len(CASES), 0)
    _check_files(tmp_path / "r.json", tmp_path / "junit.xml")
    assert load(tmp_path / "r.json").header.options.jobs == 2
    assert (tmp_path / "r.html").exists() == HAS_REPORT


# -- a wrong implementation ---------------------------------------------------------------------

STUB = "Unchanged since"
STUB_CASES = {c["name"]: [i for i, text in enumerate(c["expect"]) if STUB in text]
              for c in CASES if any(STUB in text for text in c["expect"])}


def _never_stub(tmp_path: Path, *args: str | Path, expect: int) -> Done:
    # python:MODULE imports from the working folder, where never_stub.py lives.
    return ctxconf("run", "--impl", "python:never_stub", "--json", tmp_path / "r.json", *args,
                   cwd=FAUX, expect=expect)


@pytest.mark.slow
def test_a_broken_rule_fails_exactly_its_cases(tmp_path: Path) -> None:
    assert 0 < len(STUB_CASES) < len(CASES)
    done = _never_stub(tmp_path, expect=1)
    assert _summary(done) == (len(CASES) - len(STUB_CASES), len(STUB_CASES))
    results = load(tmp_path / "r.json")
    for case in results.cases:
        failing = [s.index for s in case.steps if s.verdict == "fail"]
        assert failing == STUB_CASES.get(case.name, []), case.name
        if "ctx.stub.unchanged" in case.rules:  # the rule broken: every case of it fails
            assert case.verdict == "fail"
        if case.name in STUB_CASES:
            assert case.verdict == "fail"
            step = STUB_CASES[case.name][0]
            assert f"FAIL {case.name} step {step} ({case.steps[step].step['op']})" in done.stdout
    assert "  rules: " in done.stdout and "  input: {" in done.stdout
    assert re.search(r"^  -\[#\w+ .*\] Unchanged since", done.stdout, re.M)
    assert re.search(r"^  \+\[#\w+ .*\] Same content as", done.stdout, re.M)
    assert done.stdout.index("FAIL ") < done.stdout.index(" passed, ")  # failures first


@pytest.mark.slow
def test_known_failures_keep_the_run_green(tmp_path: Path) -> None:
    listed = tmp_path / "xfail.yaml"
    listed.write_text("".join(f"{name}: stubs are worded differently\n" for name in STUB_CASES),
                      encoding="utf-8")
    done = _never_stub(tmp_path, "--expected-failures", listed, expect=0)
    assert _summary(done) == (len(CASES) - len(STUB_CASES), 0)
    assert f"{len(STUB_CASES)} expected failure" in done.stdout
    results = load(tmp_path / "r.json")
    assert {c.name for c in results.cases if c.verdict == "expected-failure"} == set(STUB_CASES)


def test_an_expected_failure_that_passes_fails_the_run(tmp_path: Path) -> None:
    passing = next(c["name"] for c in CASES if c["name"] not in STUB_CASES)
    listed = tmp_path / "xfail.yaml"
    listed.write_text("".join(f"{name}: known\n" for name in [*STUB_CASES, passing]),
                      encoding="utf-8")
    done = _never_stub(tmp_path, "--expected-failures", listed, expect=1)
    assert f"UNEXPECTED PASS {passing}: listed as an expected failure ({listed}:" in done.stdout
    assert "but it passed: take it off the list" in done.stdout
    assert "1 unexpected pass" in done.stdout


def test_a_bad_expected_failures_file_is_a_usage_error(tmp_path: Path) -> None:
    listed = tmp_path / "xfail.yaml"
    listed.write_text("some-case:\nctx.stub.range: 12\n", encoding="utf-8")
    done = ctxconf("run", "--impl", "reference", "--expected-failures", listed, cwd=tmp_path,
                   expect=2)
    # Named as given, relative to the folder the run started in.
    assert "ctxconf run: xfail.yaml: 2 problems:" in done.stderr
    assert "  xfail.yaml:1:11: the reason for 'some-case' must be a string" in done.stderr
    assert "  xfail.yaml:2:17: the reason for 'ctx.stub.range' must be a string" in done.stderr
    assert "hint: the file is a YAML mapping" in done.stderr


# -- equivalent diffs -------------------------------------------------------------------------

OTHER_DIFF = '''
from ctxconf.runner import reference_impl

hello = reference_impl.hello


def run(request):
    answer = reference_impl.run(request)
    bracket = answer["outputs"][0].split("\\n")[0]
    return {**answer, "outputs": [bracket + "\\n@@ -1,2 +1,2 @@\\n+y\\n x\\n-y"]}
'''


@pytest.mark.parametrize(
    ("accept", "code", "shown"),
    [(False, 1, "0 passed, 0 failed, 1 equivalent diff"), (True, 0, "1 passed, 0 failed")],
    ids=["strict", "accepted"],
)
def test_equivalent_diffs(tmp_path: Path, accept: bool, code: int, shown: str) -> None:
    case: dict[str, Any] = {
        "name": "swap-two-lines", "description": "A swap.", "rules": ["ctx.edit.diff"],
        "steps": [{"op": "edit", "id": "#e001", "path": "f.txt", "before": "x\ny\n",
                   "after": "y\nx\n"}],
    }
    case["expect"] = run_case(case)
    cases = tmp_path / "edits.json"
    cases.write_text(json.dumps({"area": "context", "version": "3.1.0", "description": "Edits.",
                                 "cases": [case]}), encoding="utf-8")
    (tmp_path / "other_diff.py").write_text(OTHER_DIFF, encoding="utf-8")
    flags = ["--accept-equivalent-diffs"] if accept else []
    done = ctxconf("run", "--impl", "python:other_diff", "--cases", cases, "--json", "r.json",
                   *flags, cwd=tmp_path, expect=code)
    assert shown in done.stdout
    assert ("EQUIVALENT DIFF swap-two-lines step 0 (edit)" in done.stdout) == (not accept)
    assert load(tmp_path / "r.json").cases[0].steps[0].verdict == "equivalent-diff"


# -- choosing cases ---------------------------------------------------------------------------


@pytest.mark.slow
def test_k_and_area(tmp_path: Path) -> None:
    wanted = [c["name"] for c in CASES if any("stub" in n for n in [c["name"], *c["rules"]])]
    done = ctxconf("run", "--impl", "reference", "-k", "stub", "--json", "r.json", cwd=tmp_path)
    assert _summary(done) == (len(wanted), 0)
    assert [c.name for c in load(tmp_path / "r.json").cases] == wanted
    context = [c["name"] for c in CASES if c["area"] == "context"]
    done = ctxconf("run", "--impl", "reference", "--area", "context", "--json", "r.json",
                   cwd=tmp_path)
    assert _summary(done) == (len(context), 0)
    assert [c.name for c in load(tmp_path / "r.json").cases] == context



@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--impl", "nope"], "--impl 'nope': expected reference, python:MODULE"),
        (["--impl", "reference", "-k", "stub and"], "-k 'stub and': the expression ends too early"),
        (["--impl", "reference", "--cases", "missing.json"], "missing.json: no such file"),
        (["--impl", "reference", "-j", "0"], "-j 0: the number of workers is at least 1"),
        (["--impl", "reference", "--spec", "no-such-spec"], "no such folder"),
        (["--impl", "cmd:ctxconf-no-such-command"], "cannot start 'ctxconf-no-such-command'"),
        (["--impl", "python:ctxconf_no_such_module"], "cannot import the module"),
        (["--impl"], "expected one argument"),
    ],
    ids=["impl", "k", "cases", "jobs", "spec", "cmd", "python", "argparse"],
)
def test_unusable_input_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    args: list[str], message: str,
) -> None:
    # The same `main` as `python -m ctxconf`, in this process: the process test below checks
    # the real exit status once, for all of them.
    monkeypatch.chdir(tmp_path)
    try:
        code = main(["run", *args])
    except SystemExit as stopped:  # argparse's own errors
        code = int(stopped.code or 0)
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "reports" / "results.json").exists()


def test_unusable_input_exits_2_as_a_process(tmp_path: Path) -> None:
    done = ctxconf("run", "--impl", "nope", cwd=tmp_path, expect=2)
    assert done.stderr.split("\n")[1].startswith("ctxconf run: --impl 'nope': expected reference")
    assert "hint: see `ctxconf run --help`" in done.stderr


def test_progress_line_on_a_terminal(tmp_path: Path) -> None:
    main, terminal = pty.openpty()
    run = subprocess.Popen(
        [sys.executable, "-m", "ctxconf", "run", "--impl", "reference", "--json", "r.json"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=terminal, text=True,
    )
    os.close(terminal)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal's other end closed
            break
        if not chunk:
            break
        seen += chunk
    os.close(main)
    stdout, _ = run.communicate(timeout=60)
    assert run.returncode == 0
    shown = seen.decode("utf-8")
    assert f"\r[1/{len(CASES)}] 0 not passing  {CASES[0]['name']}\x1b[K" in shown
    assert f"\r[{len(CASES)}/{len(CASES)}] " in shown
    assert "\r" not in stdout and stdout.startswith(f"{len(CASES)} passed, 0 failed")


# -- a run that tests nothing, options that cannot be used ----------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["-k", "stubb"], "-k 'stubb' selects none of the"),
        (["--area", "contxt"], "--area contxt: no such area"),
        (["-k", "stub", "--area", "prefix"], "selects none of the"),
    ],
    ids=["k-typo", "area-typo", "k-outside-area"],
)
def test_a_run_that_would_test_nothing_is_a_usage_error(
    tmp_path: Path, args: list[str], said: str
) -> None:
    done = ctxconf("run", "--impl", "reference", *args, cwd=tmp_path, expect=2)
    assert said in done.stderr
    if args[0] == "-k":
        assert "no case ran" in done.stderr
    if len(args) == 2:  # a typo: the near name is suggested
        assert "did you mean" in done.stderr
    assert not (tmp_path / "reports").exists()


def test_a_hello_that_lists_no_known_area_is_a_usage_error(tmp_path: Path) -> None:
    impl = f"cmd:{sys.executable} {FAUX / 'unknown_area.py'}"
    done = ctxconf("run", "--impl", impl, cwd=tmp_path, expect=2)
    assert "warning: the implementation's hello lists 'Context', which is no area" in done.stderr
    assert "none of the areas of the cases chosen" in done.stderr
    assert "0 passed" not in done.stdout


@pytest.mark.parametrize("value", ["inf", "nan", "1e300", "0", "-1", "soon"])
def test_a_timeout_that_is_no_number_of_seconds_is_a_usage_error(
    tmp_path: Path, value: str
) -> None:
    done = ctxconf("run", "--impl", "reference", "--timeout", value, cwd=tmp_path, expect=2)
    assert "argument --timeout" in done.stderr
    assert done.stderr.strip().split("\n")[-1].startswith("ctxconf run: error")


def test_the_spec_folder_is_named_first(tmp_path: Path) -> None:
    done = ctxconf("run", "--impl", "reference", cwd=tmp_path)
    assert done.stderr.split("\n")[0].startswith(f"spec: {bundled_spec_dir().resolve()} (")


def test_a_python_implementation_that_changes_folder_does_not_move_the_files(
    tmp_path: Path,
) -> None:
    module = "chdir_on_run.py"
    (tmp_path / module).write_text((FAUX / module).read_text(encoding="utf-8"), encoding="utf-8")
    ctxconf("run", "--impl", "python:chdir_on_run", "-k", "stub", "--junit", "j.xml",
            "--json", "r.json", "--html", "r.html", cwd=tmp_path)
    # Written where the run started, not in the folder the implementation moved to.
    assert load(tmp_path / "r.json").cases
    assert (tmp_path / "j.xml").exists()
    assert (tmp_path / "r.html").exists() == HAS_REPORT


# -- the console ---------------------------------------------------------------------------


def test_failures_end_with_a_summary_per_rule(tmp_path: Path) -> None:
    done = _never_stub(tmp_path, expect=1)
    lines = done.stdout.rstrip("\n").split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("per rule: "))
    table = lines[start + 1 : lines.index("", start)]
    failing = [line.split()[1] for line in table if line.startswith("  FAIL ")]
    results = load(tmp_path / "r.json")
    bad = {r for c in results.cases if not c.ok for r in c.rules}
    assert set(failing) == bad
    counts = [int(line.split()[2]) for line in table if line.startswith("  FAIL ")]
    assert counts == sorted(counts, reverse=True)  # the rules with most failing cases first
    assert table[-1].startswith("  ok   every case of the other ")
    assert _summary(done) == (len(CASES) - len(STUB_CASES), len(STUB_CASES))


def test_quiet_prints_the_failures_and_the_line_of_counts_only(tmp_path: Path) -> None:
    done = _never_stub(tmp_path, "-q", expect=1)
    loud = _never_stub(tmp_path, expect=1)
    assert done.stderr == "", done  # no "spec: …", no "wrote …"
    assert loud.stderr.startswith("spec: ") and "\nwrote " in loud.stderr, loud
    failures = loud.stdout[: loud.stdout.index("per rule: ")]
    assert done.stdout.startswith(failures), done
    assert done.stdout[len(failures) :].count("\n") == 1, done  # then the line of counts alone
    assert _summary(done) == (len(CASES) - len(STUB_CASES), len(STUB_CASES))


def test_a_run_that_skipped_every_case_fails_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "skips.py").write_text(
        "from ctxconf.runner import reference_impl\n"
        "hello = reference_impl.hello\n"
        "def run(request):\n"
        "    return {'seq': request['seq'], 'skipped': 'not wired up yet'}\n",
        encoding="utf-8",
    )
    done = ctxconf("run", "--impl", "python:skips", "-k", "stub", "--json", "r.json",
                   cwd=tmp_path, expect=1)  # fmt: skip
    assert "nothing was judged: the implementation skipped every case" in done.stderr, done
    assert re.search(r"^0 passed, 0 failed, \d+ skipped in ", done.stdout, re.M), done


# -- expected failures written and read back -------------------------------------------------


@pytest.mark.slow
def test_write_expected_failures_then_run_green(tmp_path: Path) -> None:
    listed = tmp_path / "known.yaml"
    _never_stub(tmp_path, "--write-expected-failures", listed, expect=1)
    import yaml

    written = yaml.safe_load(listed.read_text(encoding="utf-8"))
    assert set(written) == set(STUB_CASES)
    assert all(reason.startswith("fail: step") for reason in written.values())
    done = _never_stub(tmp_path, "--expected-failures", listed, expect=0)
    assert f"{len(STUB_CASES)} expected failures" in done.stdout
    results = load(tmp_path / "r.json")
    known = [c for c in results.cases if c.verdict == "expected-failure"]
    assert {c.name for c in known} == set(STUB_CASES)
    assert all(c.expected_failure and c.expected_failure.entry == c.name for c in known)
    assert all(any(s.verdict == "fail" for s in c.steps) for c in known)  # the real outcome kept


def test_written_expected_failures_keep_the_implementations_own_reason(tmp_path: Path) -> None:
    listed = tmp_path / "known.yaml"
    ctxconf("run", "--impl", "python:partial_context", "--json", tmp_path / "r.json",
            "--write-expected-failures", listed, cwd=FAUX, expect=1)  # fmt: skip
    import yaml

    written = yaml.safe_load(listed.read_text(encoding="utf-8"))
    edit = next(c for c in CASES if c["name"] in written and c["steps"][0]["op"] == "edit")
    assert written[edit["name"]].startswith("fail: step 0 (edit): the implementation answered: "
                                            "edit is not implemented yet"), written  # fmt: skip


def test_a_rule_entry_that_covers_passing_cases_names_itself(tmp_path: Path) -> None:
    anchor = next(r for c in CASES if c["name"] in STUB_CASES for r in c["rules"])
    prefix = anchor.rsplit(".", 1)[0]
    listed = tmp_path / "known.yaml"
    listed.write_text(f"{prefix}: stubs are not done\n", encoding="utf-8")
    done = _never_stub(tmp_path, "--expected-failures", listed, expect=None)
    passing_under = [
        c["name"] for c in CASES
        if c["name"] not in STUB_CASES and any(r.startswith(prefix + ".") for r in c["rules"])
    ]
    for name in passing_under:
        assert f"UNEXPECTED PASS {name}: listed as an expected failure under {prefix!r}" in (
            done.stdout
        )
    assert done.returncode == (1 if passing_under else 0)


@pytest.mark.slow
def test_a_lone_surrogate_in_one_output_names_its_step(tmp_path: Path) -> None:
    impl = f"cmd:{sys.executable} {FAUX / 'surrogate_in_output.py'}"
    done = ctxconf("run", "--impl", impl, "--json", "r.json", cwd=tmp_path, expect=1)
    case = load(tmp_path / "r.json").cases[1]
    op = CASES[1]["steps"][1]["op"]
    assert case.verdict == "error"
    assert case.message.startswith(f"output 1 (step 1, {op}): the response holds a lone surrogate")
    assert "at /outputs/1" in case.message
    assert f"ERROR {CASES[1]['name']}: output 1 (step 1, {op})" in done.stdout
