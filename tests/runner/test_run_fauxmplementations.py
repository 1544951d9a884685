"""Implementations that break on purpose (tests/fauxmplementations/), run as users run them:
each costs the one case it breaks on (the second of the run), with a verdict saying what
happened, while every other case of the same run still passes."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxconf.runner.results import load
from ctxconf.runner.transports.base import START_SECONDS
from ctxconf.specdata.paths import bundled_spec_dir
from tests.cli import Done, ctxconf
from tests.paths import FAUX

pytestmark = pytest.mark.slow  # each test runs ctxconf against a broken process

# The runs are of the context area alone (the first in run order, and what every
# fauxmplementation speaks): one area's cases around the broken one prove what all three would,
# at a third of the cost.
AREA = "context"
CASES: list[dict[str, Any]] = [  # every bundled case of AREA, in run order, with its area
    {**case, "area": AREA}
    for case in json.loads(
        (bundled_spec_dir() / "conformance" / f"{AREA}.json").read_text(encoding="utf-8")
    )["cases"]
]
BROKEN = 1  # the seq the fauxmplementations break on: the second case

# script, verdict, message, a line of its stderr
BROKEN_RUNS = [
    (
        "crash_on_run",
        "crash",
        "the implementation exited with code 3 before answering",
        "crash_on_run: giving up on purpose",
    ),
    (
        "hang",
        "timeout",
        "no answer within 4 s: the implementation was killed (its whole process group)",
        "hang: child pid",
    ),
    (
        "nonjson_on_run",
        "error",
        "the response is not JSON (Expecting value at column 1): 'this is not JSON'",
        "",
    ),
    ("array_on_run", "error", "not a protocol message: a JSON array: '[1, 2, 3]'", ""),
    (
        "two_answers",
        "error",
        'a run response carries exactly one of "outputs", "error" or '
        '"skipped"; found "outputs" and "error"',
        "",
    ),
    ("wrong_seq", "error", "wrong seq: the response says 101, the request 1", ""),
    ("too_few_outputs", "error", "too few outputs: expected 4 (one per step), got 3", ""),
    ("too_many_outputs", "error", "too many outputs: expected 4 (one per step), got 5", ""),
    ("non_utf8", "error", "the response is not UTF-8: byte 0xe9 at offset 27", ""),
    ("huge_line", "error", "a response line longer than 67108864 bytes", ""),
    (
        "error_on_run",
        "error",
        "the implementation answered with an error: multiedit is not implemented",
        "",
    ),
    (
        "trickle_line",
        "timeout",
        "no answer within 4 s: the implementation was killed (its whole process group)",
        "",
    ),
    ("endless_line", "error", "a response line longer than 67108864 bytes", ""),
    (
        "deep_nesting",
        "error",
        "the response is refused: arrays and objects nest deeper than 256 levels",
        "",
    ),
    (
        "huge_integer",
        "error",
        "the response is refused: an integer of 5,000 digits (at most 1,000)",
        "",
    ),
    ("nan_in_answer", "error", "the response is refused: NaN is not JSON", ""),
    (
        "overflowing_number",
        "error",
        "the response is refused: the number 1e400 is too large to be a finite number",
        "",
    ),
]
# Run with --timeout 4, short enough to wait for and long enough for a case's answer while the
# other runs start (their starts have --start-timeout's allowance); the others get 20.
SLOW = {"hang", "trickle_line"}


def _cmd(script: str) -> str:
    return f"cmd:{sys.executable} {FAUX / script}.py"


class _Runs:
    """`ctxconf run` against each fauxmplementation, all started at once (each run spends most
    of its time starting processes), each awaited by the test that checks it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.started: dict[str, subprocess.Popen[str]] = {}

    def start(self, script: str, *args: str) -> None:
        out = self.folder / script
        out.mkdir()
        self.started[script] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ctxconf",
                "run",
                "--impl",
                _cmd(script),
                "--area",
                AREA,
                *args,
                "--json",
                str(out / "results.json"),
            ],
            cwd=out,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def finish(self, script: str, expect: int) -> tuple[Done, Path]:
        process = self.started.pop(script)
        stdout, stderr = process.communicate(timeout=120)
        done = Done(process.returncode, stdout, stderr)
        assert done.returncode == expect, str(done)
        assert "Traceback" not in done.stderr, str(done)
        return done, self.folder / script

    def stop(self) -> None:
        for process in self.started.values():
            process.kill()
            process.communicate()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Runs]:
    runs = _Runs(tmp_path_factory.mktemp("faux"))
    for script, *_ in BROKEN_RUNS:
        runs.start(script, "--timeout", "4" if script in SLOW else "20")
    for script in ("skip_on_run", "bad_hello", "crash_on_start"):
        runs.start(script)
    yield runs
    runs.stop()


def _check_one_case_lost(tmp_path: Path, stdout: str, verdict: str, message: str) -> Any:
    results = load(tmp_path / "results.json")
    broken = results.cases[BROKEN]
    assert broken.name == CASES[BROKEN]["name"]
    assert broken.verdict == verdict
    assert message in broken.message
    others = [c.verdict for i, c in enumerate(results.cases) if i != BROKEN]
    assert others == ["pass"] * (len(CASES) - 1)
    last = stdout.rstrip("\n").split("\n")[-1]
    assert last.startswith(f"{len(CASES) - 1} passed, 0 failed, ")
    return broken


@pytest.mark.parametrize(
    ("script", "verdict", "message", "stderr"), BROKEN_RUNS, ids=[r[0] for r in BROKEN_RUNS]
)
def test_broken_case_costs_one_case(
    runs: _Runs, script: str, verdict: str, message: str, stderr: str
) -> None:
    assert len(CASES[BROKEN]["steps"]) == 4  # the counts in the messages above
    done, folder = runs.finish(script, expect=1)
    broken = _check_one_case_lost(folder, done.stdout, verdict, message)
    assert stderr in broken.stderr
    assert f"{verdict.upper()} {broken.name}: {message}" in done.stdout
    if stderr:
        assert f"  | {stderr}" in done.stdout
    if script in SLOW:  # the one case's timeout, with a restart: never the hang's length
        # The case's own time, not the run's: the run's grows with the suite and the machine's
        # load, while every other case passing says none of them waited for a timeout.
        assert broken.duration < 10


def test_a_skipped_case_does_not_fail_the_run(runs: _Runs) -> None:
    done, folder = runs.finish("skip_on_run", expect=0)
    broken = _check_one_case_lost(folder, done.stdout, "skipped", "not in this harness")
    assert [s.verdict for s in broken.steps] == ["not-run"] * 4


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("bad_hello", '"protocol" is 99, the runner speaks 1'),
        (
            "crash_on_start",
            "exited with code 1 before answering\n--- its stderr:\n"
            "crash_on_start: no configuration found",
        ),
    ],
    ids=["bad_hello", "crash_on_start"],
)
def test_no_hello_no_run(runs: _Runs, script: str, message: str) -> None:
    done, folder = runs.finish(script, expect=2)
    assert "ctxconf run: the implementation did not answer hello: " in done.stderr
    assert message in done.stderr
    assert not (folder / "results.json").exists()


@pytest.fixture
def http_faux(request: pytest.FixtureRequest) -> Iterator[str]:
    server = subprocess.Popen(
        [sys.executable, str(FAUX / f"{request.param}.py")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.kill()
        server.wait()
        if server.stdout is not None:
            server.stdout.close()


@pytest.mark.parametrize(
    ("http_faux", "verdict", "message"),
    [
        (
            "http_error_status",
            "error",
            'POST /run: HTTP 500 Internal Server Error: {"error": "internal trouble"}',
        ),
        ("reset_connection", "error", "POST /run: the connection was reset"),
        ("close_without_answer", "error", "POST /run: the connection closed without an answer"),
        (
            "deep_nesting_http",
            "error",
            "the response is refused: arrays and objects nest deeper than 256 levels",
        ),
        ("trickle_body", "timeout", "POST /run: no answer within 2 s"),
        ("trickle_headers", "timeout", "POST /run: no answer within 2 s"),
        ("endless_continue", "timeout", "POST /run: no answer within 2 s"),
    ],
    indirect=["http_faux"],
    ids=[
        "http_error_status",
        "reset_connection",
        "close_without_answer",
        "deep_nesting_http",
        "trickle_body",
        "trickle_headers",
        "endless_continue",
    ],
)
def test_broken_http_answers_cost_one_case(
    tmp_path: Path, http_faux: str, verdict: str, message: str
) -> None:
    assert http_faux.startswith("http://127.0.0.1:")
    done = ctxconf(
        "run",
        "--impl",
        http_faux,
        "--area",
        AREA,
        "--timeout",
        "2",
        "--json",
        tmp_path / "results.json",
        cwd=tmp_path,
        expect=1,
    )
    broken = _check_one_case_lost(tmp_path, done.stdout, verdict, message)
    assert broken.duration < 10  # the deadline, not a byte's or a line's


@pytest.mark.parametrize("http_faux", ["trickle_hello"], indirect=True)
def test_a_trickled_hello_stops_the_run_at_the_deadline(tmp_path: Path, http_faux: str) -> None:
    started = time.monotonic()
    done = ctxconf("run", "--impl", http_faux, "--start-timeout", "2", cwd=tmp_path, expect=2)
    assert "the implementation did not answer hello: GET /hello: no answer within 2 s" in (
        done.stderr
    )
    assert time.monotonic() - started < 10


def _user_folder(tmp_path: Path, module: str) -> Path:
    """A folder holding a module, as a user's project would: not on PYTHONPATH."""
    for name in (module, "_faux"):
        shutil.copy(FAUX / f"{name}.py", tmp_path / f"{name}.py")
    return tmp_path


def _as_user(folder: Path, *args: str) -> Done:
    """The installed `ctxconf` script (not `python -m`, which would add the folder itself),
    started in `folder` without PYTHONPATH."""
    script = Path(sys.executable).with_name("ctxconf")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    process = subprocess.run(
        [str(script), *args], cwd=folder, env=env, capture_output=True, text=True, timeout=120
    )
    done = Done(process.returncode, process.stdout, process.stderr)
    assert "Traceback" not in done.stderr, str(done)
    return done


def test_a_python_module_answering_deep_nesting_costs_one_case(tmp_path: Path) -> None:
    folder = _user_folder(tmp_path, "deep_nesting_module")
    done = _as_user(
        folder, "run", "--impl", "python:deep_nesting_module", "--area", AREA, "--json",
        "results.json",
    )  # fmt: skip
    assert done.returncode == 1, str(done)
    _check_one_case_lost(
        folder,
        done.stdout,
        "error",
        "run() returned what is refused: arrays and objects nest deeper than 256 levels",
    )


def test_pyproc_kills_a_module_holding_the_gil(tmp_path: Path) -> None:
    folder = _user_folder(tmp_path, "regex_holds_gil")
    done = _as_user(
        folder,
        "run",
        "--impl",
        "pyproc:regex_holds_gil",
        "--area",
        AREA,
        "--timeout",
        "2",
        "--json",
        "results.json",
    )
    assert done.returncode == 1, str(done)
    broken = _check_one_case_lost(
        folder,
        done.stdout,
        "timeout",
        "no answer within 2 s: the implementation was killed (its whole process group)",
    )
    assert broken.duration < 10


def test_a_slow_start_costs_no_case(tmp_path: Path) -> None:
    # Two seconds at every start, twice the cases' timeout; it crashes on the broken case, so the
    # next case starts it again: only the crash costs a case.
    impl = _cmd("slow_start") + " 2"
    json_path = tmp_path / "results.json"
    done = ctxconf(
        "run", "--impl", impl, "--area", AREA, "--timeout", "1", "--json", json_path, expect=1
    )
    _check_one_case_lost(tmp_path, done.stdout, "crash", "exited with code 3")
    options = json.loads(json_path.read_text(encoding="utf-8"))["header"]["options"]
    assert (options["timeout"], options["start_timeout"]) == (1, START_SECONDS)


def test_start_timeout_bounds_the_start(tmp_path: Path) -> None:
    impl = _cmd("slow_start") + " 60"
    started = time.monotonic()
    done = ctxconf("run", "--impl", impl, "--start-timeout", "1", cwd=tmp_path, expect=2)
    assert "the implementation did not answer hello: no answer within 1 s" in done.stderr
    assert time.monotonic() - started < 15
    assert not (tmp_path / "reports").exists()


@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan", "soon"])
def test_start_timeout_out_of_range_is_refused(tmp_path: Path, value: str) -> None:
    done = ctxconf("run", "--impl", "reference", "--start-timeout", value, cwd=tmp_path, expect=2)
    assert "--start-timeout" in done.stderr


def test_refused_connection_stops_the_run(tmp_path: Path) -> None:
    done = ctxconf("run", "--impl", "http://127.0.0.1:1", cwd=tmp_path, expect=2)
    assert "GET /hello: connection refused by http://127.0.0.1:1" in done.stderr


def test_sigterm_to_the_runner_kills_the_hung_group(tmp_path: Path) -> None:
    runner = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ctxconf",
            "run",
            "--impl",
            _cmd("hang_ignoring_sigterm"),
            "--timeout",
            "60",
            "--json",
            str(tmp_path / "results.json"),
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "pids").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)  # the pids are written: both now ignore SIGTERM
        pids = [int(pid) for pid in (tmp_path / "pids").read_text().split()]
        runner.send_signal(signal.SIGTERM)
        stdout, stderr = runner.communicate(timeout=15)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.communicate()
    assert runner.returncode == 130, f"{stdout}\n{stderr}"
    assert "Traceback" not in stderr
    deadline = time.monotonic() + 5
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in pids), "the hung group outlived the runner"


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie waiting to be reaped does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
