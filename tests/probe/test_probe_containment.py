"""Containment: the mock reads bodies within limits and refuses the rest with a 4xx and a line
in the results, never a traceback; every process a harness starts is found and ended, inside
its process group or not, and a kill in crash-mid-call is known to have landed inside the
call."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import secrets
import signal
import subprocess
import sys
import zlib
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from ctxconf.probe import containment
from ctxconf.probe.bodies import MAX_BODY_BYTES
from ctxconf.probe.checks import judge_run
from ctxconf.probe.isolation import faketime_library
from ctxconf.probe.server import MockServer, Script, read_log
from tests.cli import ctxconf

from .helpers import checks_of, fake_profile, run_fake, write_scenario


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[MockServer]:
    with MockServer(Script([], "/work"), tmp_path / "log.jsonl") as server:
        yield server


def _post(mock: MockServer, data: bytes, **headers: str) -> tuple[int, str]:
    # Closed however the exchange ends: a refusal before the body is sent whole may break the
    # send, and a socket left open is found by a later test's collection.
    with closing(http.client.HTTPConnection("127.0.0.1", mock.port, timeout=60)) as connection:
        connection.request("POST", "/v1/chat/completions", body=data, headers=headers)
        response = connection.getresponse()
        answer = json.loads(response.read())
    return response.status, answer["error"]["message"] if "error" in answer else ""


def _bomb(kind: str) -> tuple[bytes, dict[str, str]]:
    """A body past one limit: nested too deep, or small on the wire and too large inflated."""
    if kind == "deep":
        return b"[" * 100_000 + b"]" * 100_000, {}
    huge = b'{"a": "' + b" " * (MAX_BODY_BYTES + 10) + b'"}'
    if kind == "gzip":
        return gzip.compress(huge, 6), {"Content-Encoding": "gzip"}
    if kind == "deflate":
        return zlib.compress(huge, 6), {"Content-Encoding": "deflate"}
    if kind == "deflate-raw":
        return zlib.compress(huge, 6)[2:-4], {"Content-Encoding": "deflate"}
    brotli = pytest.importorskip("brotli", reason="the test extras install brotli")
    return brotli.compress(huge, quality=1), {"Content-Encoding": "br"}


@pytest.mark.slow  # each bomb is 64 MiB squeezed
@pytest.mark.parametrize("kind", ["deep", "gzip", "deflate", "deflate-raw", "br"])
def test_a_body_past_a_limit_is_refused_with_a_4xx_and_recorded(
    mock: MockServer, tmp_path: Path, kind: str
) -> None:
    data, headers = _bomb(kind)
    status, message = _post(mock, data, **headers)
    assert status == 413, message
    entry = read_log(tmp_path / "log.jsonl")[-1]
    assert (entry["kind"], entry["status"]) == ("refused", 413)
    assert "body" not in entry and ("nest deeper" in message or "inflates past" in message)


def test_a_length_past_the_limit_is_refused_before_it_is_read(mock: MockServer) -> None:
    with closing(http.client.HTTPConnection("127.0.0.1", mock.port, timeout=60)) as connection:
        connection.putrequest("POST", "/v1/messages")
        connection.putheader("Content-Length", str(MAX_BODY_BYTES + 1))
        connection.endheaders()
        response = connection.getresponse()
        message = json.loads(response.read())["error"]["message"]
    assert response.status == 413
    assert "past 67,108,864 bytes" in message


@pytest.mark.parametrize(
    ("data", "headers", "status"),
    [
        (b"not json", {}, 400),
        (b"\x1f\x8b broken", {"Content-Encoding": "gzip"}, 400),
        (b"{}", {"Content-Encoding": "zstd"}, 415),
        (b"{}", {"Content-Length": "twelve"}, 400),
    ],
    ids=["not-json", "broken-gzip", "unknown-encoding", "bad-length"],
)
def test_an_unreadable_body_is_a_4xx_that_says_why(
    mock: MockServer, data: bytes, headers: dict[str, str], status: int
) -> None:
    code, message = _post(mock, data, **headers)
    assert code == status and message


def test_a_body_within_the_limits_is_answered_gzip_and_br_alike(mock: MockServer) -> None:
    body = json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode()
    assert _post(mock, gzip.compress(body), **{"Content-Encoding": "gzip"})[0] == 200
    brotli = pytest.importorskip("brotli", reason="the test extras install brotli")
    assert _post(mock, brotli.compress(body), **{"Content-Encoding": "br"})[0] == 200


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["deep", "gzip"])
def test_a_harness_sending_a_bad_body_costs_an_error_line_never_a_traceback(
    tmp_path: Path, kind: str
) -> None:
    profile = fake_profile(tmp_path, "chat", variant="bad_body", options=("--kind", kind))
    done = ctxconf("probe", "--harness", profile, "--json", tmp_path / "r.json", expect=1)
    assert "Traceback" not in done.stderr + done.stdout
    data = json.loads((tmp_path / "r.json").read_text())
    assert [s["need"] for s in data["shortfalls"]] == ["bodies"]
    assert "request 1 was refused (HTTP 413)" in data["shortfalls"][0]["reason"]
    checks = {c["id"]: c for c in data["checks"]}
    assert checks["system-once"]["verdict"] == "error"
    assert sum(Path(p).stat().st_size for p in data["logs"]) < 10 * 1024 * 1024


# --- processes ------------------------------------------------------------------------------


@pytest.fixture(params=["cgroup", "marker"])
def finder(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each way of finding a harness's processes: its cgroup (where the machine allows one) and
    the marker in its environment."""
    if request.param == "cgroup":
        base = containment.cgroup_base()
        probe = containment.Container()
        made = probe.cgroup is not None
        probe.close()
        if base is None or not made:
            pytest.skip("this machine lets no cgroup be made here")
    else:
        monkeypatch.setattr(containment, "cgroup_base", lambda: None)
    return str(request.param)


@pytest.mark.slow
@pytest.mark.slow
def test_a_daemon_left_outside_the_group_is_ended_and_named(tmp_path: Path, finder: str) -> None:
    run = run_fake(tmp_path, "chat", variant="leaves_daemon")
    left = [name for s in run.sessions for p in s.processes for name in p.left_running]
    assert len(left) == 2 and all(name.startswith("sleep (sleep 600 0") for name in left), left
    assert [p.not_ended for s in run.sessions for p in s.processes] == [(), ()]
    clean = run_fake(tmp_path / "clean", "chat")
    assert [p.left_running for s in clean.sessions for p in s.processes] == [(), ()]


@pytest.mark.slow
@pytest.mark.slow
def test_a_daemon_that_clears_its_environment_is_found_by_its_cgroup_alone(
    tmp_path: Path, finder: str
) -> None:
    tag = str(secrets.randbelow(10**12))
    options = ("--clear-env", "--tag", tag)
    run = run_fake(tmp_path, "chat", variant="leaves_daemon", options=options)
    left = [name for s in run.sessions for p in s.processes for name in p.left_running]
    if finder == "cgroup":
        assert len(left) == 2, left
        return
    # What the marker cannot see, and the reason for the cgroup: end them here, by pid.
    assert left == []
    mine = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _runs(p, tag)]
    assert len(mine) == 2
    for process in mine:
        os.kill(int(process.name), signal.SIGKILL)


def _runs(process: Path, tag: str) -> bool:
    try:
        return (process / "cmdline").read_bytes() == f"sleep\0{600}\0{0}.{tag}\0".encode()
    except OSError:
        return False


def _quick_crash(folder: Path) -> str:
    """crash-mid-call with a 6-second call killed after 1 second."""
    return write_scenario(
        folder,
        {
            "name": "quick-crash",
            "description": "a short crash",
            "files": {"A.txt": "one\n"},
            "turns": [
                {"user": "Run wc -l A.txt.", "steps": [{"bash": "wc -l A.txt"}, {"text": "1."}]},
                {
                    "user": "Run timeout 6 tail -f /dev/null.",
                    "new_process": True,
                    "kill_after_call_s": 1,
                    "steps": [{"bash": "timeout 6 tail -f /dev/null"}, {"text": "Done."}],
                },
                {"user": "Go on.", "new_process": True, "steps": [{"text": "On."}]},
            ],
        },
    )


@pytest.mark.slow
def test_a_command_run_outside_the_group_is_ended_by_the_kill_so_the_crash_is_real(
    tmp_path: Path, finder: str
) -> None:
    scenario = _quick_crash(tmp_path)
    run = run_fake(tmp_path, "anthropic", scenario, variant="runs_in_daemon", persist=True)
    kill = run.sessions[0].processes[1].kill
    assert kill is not None and kill.running, kill
    assert any("timeout 6 tail" in name for name in kill.left_group), kill
    judged = judge_run(run)
    assert judged.shortfalls == [], judged.shortfalls
    assert {c.id: c for c in judged.checks}["no-half-turn"].verdict == "pass"


@pytest.mark.slow
def test_a_kill_that_misses_the_command_is_an_error_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No cgroup, and the command runs with an empty environment: nothing the probe can find
    # runs it when the kill comes, so the scenario may have measured no crash at all.
    monkeypatch.setattr(containment, "cgroup_base", lambda: None)
    scenario = _quick_crash(tmp_path)
    run = run_fake(
        tmp_path, "chat", scenario, variant="runs_in_daemon", options=("--clear-env",), persist=True
    )
    checks = checks_of(run)
    for check_id in ("no-half-turn", "cold-equals-live", "truncate"):
        assert checks[check_id].verdict == "error", checks[check_id]
        assert "no process of the harness was running 'timeout 6 tail -f /dev/null'" in (
            checks[check_id].summary
        )


def test_a_preloaded_library_reaches_the_harness_and_not_the_shell_that_joins_the_cgroup(
    finder: str,
) -> None:
    # libfaketime loaded into the joining shell leaves state for its process id, which the
    # harness, exec'd in the same process, then finds (Claude Code exits 1 on it).
    library = faketime_library()
    if library is None:
        pytest.skip("libfaketime is not installed (Debian: apt-get install faketime)")
    container = containment.Container()
    code = "import os; print(os.environ.get('LD_PRELOAD'), os.environ.get('CTXCONF_PROBE_PRELOAD'))"
    env = {"PATH": "/usr/bin:/bin", "LD_PRELOAD": library}
    argv, started_env = container.command([sys.executable, "-c", code], env)
    try:
        done = subprocess.run(argv, env=started_env, capture_output=True, text=True, check=True)
    finally:
        container.close()
    assert done.stdout.split() == [library, "None"]
    assert started_env[containment.MARKER] == container.token
    if finder == "cgroup":
        assert "LD_PRELOAD" not in started_env  # the shell runs without it


@pytest.mark.slow
def test_the_scenarios_own_command_is_ended_by_its_kill_and_never_called_left_running(
    tmp_path: Path, finder: str
) -> None:
    # `timeout` puts itself in a process group of its own, so after the kill it stands outside
    # the harness's group: the scenario's command, which the kill ends, not a leak.
    scenario = _quick_crash(tmp_path)
    run = run_fake(tmp_path, "chat", scenario, persist=True)
    kill = run.sessions[0].processes[1].kill
    assert kill is not None and kill.running, kill
    assert any(name.startswith("timeout (timeout 6 tail") for name in kill.ended), kill
    assert [p.left_running for s in run.sessions for p in s.processes] == [(), (), ()]
    assert [p.not_ended for s in run.sessions for p in s.processes] == [(), (), ()]


@pytest.mark.slow
def test_a_daemon_the_harness_leaves_in_a_crash_is_still_named(tmp_path: Path, finder: str) -> None:
    scenario = _quick_crash(tmp_path)
    run = run_fake(tmp_path, "chat", scenario, variant="leaves_daemon", persist=True)
    left = [[n for n in p.left_running] for s in run.sessions for p in s.processes]
    assert all(len(names) == 1 and names[0].startswith("sleep (sleep 600 0") for names in left), (
        left
    )
    assert not any("timeout" in name for names in left for name in names), left
