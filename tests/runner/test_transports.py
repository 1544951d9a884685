"""Each transport on its own: the SPEC strings, carrying messages, and each way of failing."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxconf.runner.errors import ImplementationStartError, UsageError
from ctxconf.runner.protocol import hello_request, run_request
from ctxconf.runner.reference_impl import ReferenceImplementation
from ctxconf.runner.serve import make_http_server
from ctxconf.runner.transports import (
    CaseFailure,
    FakeTransport,
    HttpTransport,
    JsonLinesTransport,
    PythonTransport,
    transport_factory,
)
from ctxconf.runner.transports.base import decode_message
from tests.paths import FAUX

STEPS = [{"op": "read", "id": "#a001", "path": "a.txt", "content": "x\n"}]


def _request(seq: int) -> dict[str, Any]:
    return run_request(seq, "context", {"steps": STEPS})


# What every transport must carry back unchanged: the reference's answer, computed in process.
EXPECTED = ReferenceImplementation().run(_request(0))["outputs"]


# -- SPEC strings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("reference", PythonTransport),
        ("python:ctxconf.runner.reference_impl", PythonTransport),
        (f"cmd:{sys.executable} -m ctxconf serve --stdio", JsonLinesTransport),
        ("http://127.0.0.1:9/base", HttpTransport),
    ],
    ids=["reference", "python", "cmd", "http"],
)
def test_spec_chooses_the_transport(spec: str, kind: type) -> None:
    transport = transport_factory(spec, start_timeout=1)()
    try:
        assert isinstance(transport, kind)
    finally:
        transport.close()


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ("", UsageError, "expected reference, python:MODULE"),
        ("ruby:impl", UsageError, "expected reference, python:MODULE"),
        ("cmd:", UsageError, "needs a command"),
        ("cmd:'unclosed", UsageError, "cannot split the command"),
        ("python:", UsageError, "needs a module name"),
        ("http://", UsageError, "not an http:// or https:// URL"),
        ("python:ctxconf_no_such_module", ImplementationStartError, "cannot import the module"),
        ("python:json", ImplementationStartError, "has no hello() or run()"),
    ],
    ids=[
        "empty",
        "unknown",
        "cmd-empty",
        "cmd-quote",
        "python-empty",
        "http-no-host",
        "python-missing",
        "python-not-impl",
    ],
)
def test_unusable_specs(spec: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        transport_factory(spec, start_timeout=1)


@pytest.mark.parametrize(
    ("spec", "suggestion"),
    [
        ("refrence", "reference"),
        ("Reference", "reference"),
        ("pyton:impl", "python:impl"),
        ("htp://127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("cmd", "cmd:…"),
    ],
)
def test_a_mistyped_form_gets_the_near_one(spec: str, suggestion: str) -> None:
    with pytest.raises(UsageError) as raised:
        transport_factory(spec, start_timeout=1)
    assert str(raised.value).endswith(f"did you mean {suggestion}?")


def test_an_unlike_form_gets_no_suggestion() -> None:
    with pytest.raises(UsageError) as raised:
        transport_factory("ruby:impl", start_timeout=1)
    assert "did you mean" not in str(raised.value)


# -- the fake -------------------------------------------------------------------------------


def test_fake_transport_records_and_answers() -> None:
    fake = FakeTransport(lambda r: {"seq": r["seq"], "outputs": ["x"]}, stderr="note")
    assert fake.hello()["protocol"] == 1
    assert fake.run(_request(3), 1) == {"seq": 3, "outputs": ["x"]}
    assert fake.requests == [_request(3)]
    assert fake.take_stderr() == "note"
    fake.close()
    assert fake.closed


# -- JSON lines -------------------------------------------------------------------------------


def _faux(name: str, **options: Any) -> JsonLinesTransport:
    return JsonLinesTransport([sys.executable, str(FAUX / f"{name}.py")], **options)


def _alive(pid: int) -> bool:
    """Whether `pid` still runs: a killed process waiting to be reaped (a zombie) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def test_json_lines_serve_many_cases_in_one_process() -> None:
    serve = [sys.executable, "-m", "ctxconf", "serve", "--stdio"]
    transport = JsonLinesTransport(serve, start_timeout=10)
    try:
        assert transport.hello()["implementation"]["name"] == "ctxconf-reference"
        for seq in range(3):
            assert transport.run(_request(seq), 10) == {"seq": seq, "outputs": EXPECTED}
        assert transport.take_stderr() == ""
    finally:
        transport.close()


@pytest.mark.slow
def test_json_lines_restart_after_a_crash() -> None:
    transport = _faux("crash_on_run", start_timeout=10)
    try:
        transport.hello()
        assert transport.run(_request(0), 10)["outputs"] == EXPECTED
        with pytest.raises(CaseFailure) as raised:
            transport.run(_request(1), 10)
        assert raised.value.kind == "crash"
        assert raised.value.message == "the implementation exited with code 3 before answering"
        assert "giving up on purpose" in transport.take_stderr()
        assert transport.run(_request(2), 10)["outputs"] == EXPECTED
    finally:
        transport.close()


def _slow_start(seconds: float, start_timeout: float) -> JsonLinesTransport:
    script = str(FAUX / "slow_start.py")
    return JsonLinesTransport([sys.executable, script, str(seconds)], start_timeout=start_timeout)


@pytest.mark.slow
def test_json_lines_start_and_restart_have_their_own_allowance() -> None:
    transport = _slow_start(1.5, start_timeout=30)
    try:
        transport.hello()  # 1.5 s, three times the cases' timeout
        assert transport.run(_request(0), 0.5)["outputs"] == EXPECTED
        with pytest.raises(CaseFailure, match="exited with code 3"):
            transport.run(_request(1), 0.5)
        started = time.monotonic()
        assert transport.run(_request(2), 0.5)["outputs"] == EXPECTED  # restarted first
        assert time.monotonic() - started >= 1.5
    finally:
        transport.close()


def test_json_lines_start_timeout_bounds_the_hello() -> None:
    transport = _slow_start(60, start_timeout=0.5)
    try:
        started = time.monotonic()
        with pytest.raises(CaseFailure, match=r"no answer within 0\.5 s") as raised:
            transport.hello()
        assert raised.value.kind == "timeout"
        assert time.monotonic() - started < 5
    finally:
        transport.close()


@pytest.mark.slow
def test_json_lines_hang_kills_the_process_group() -> None:
    transport = _faux("hang", start_timeout=10)
    try:
        transport.hello()
        started = time.monotonic()
        with pytest.raises(CaseFailure) as raised:
            transport.run(_request(1), 0.5)
        assert time.monotonic() - started < 3
        assert raised.value.kind == "timeout"
        assert "no answer within 0.5 s" in raised.value.message
        stderr = transport.take_stderr()
        child = int(stderr.split("child pid ")[1].split()[0])
        deadline = time.monotonic() + 2
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child), "the hung implementation's child outlived the kill"
        assert transport.run(_request(2), 10)["outputs"] == EXPECTED
    finally:
        transport.close()


def test_json_lines_cap_the_line_length() -> None:
    transport = JsonLinesTransport(
        [sys.executable, "-m", "ctxconf", "serve", "--stdio"], start_timeout=10, max_line_bytes=40
    )
    try:
        with pytest.raises(CaseFailure, match="a response line longer than 40 bytes"):
            transport.hello()
    finally:
        transport.close()


def test_json_lines_keep_only_the_end_of_stderr() -> None:
    script = "import sys; sys.stderr.write('x' * 5000 + 'THE END'); sys.stderr.flush(); sys.exit(1)"
    argv = [sys.executable, "-c", script]
    transport = JsonLinesTransport(argv, start_timeout=10, stderr_kept_bytes=100)
    with pytest.raises(CaseFailure) as raised:
        transport.hello()
    assert raised.value.kind == "crash"
    stderr = transport.take_stderr()
    assert len(stderr) == 100 and stderr.endswith("THE END")
    transport.close()


def test_json_lines_command_not_found() -> None:
    transport = JsonLinesTransport(["ctxconf-no-such-command-here"], start_timeout=10)
    with pytest.raises(CaseFailure, match="cannot start 'ctxconf-no-such-command-here'"):
        transport.hello()
    transport.close()


# -- HTTP -----------------------------------------------------------------------------------


@pytest.fixture
def server_url() -> Iterator[str]:
    server = make_http_server("127.0.0.1", 0, ReferenceImplementation())
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_http_serves_many_cases_on_one_connection(server_url: str) -> None:
    transport = HttpTransport(server_url, start_timeout=10)
    try:
        assert transport.hello() == ReferenceImplementation().hello()
        for seq in range(3):
            assert transport.run(_request(seq), 10) == {"seq": seq, "outputs": EXPECTED}
    finally:
        transport.close()


def test_http_error_status(server_url: str) -> None:
    transport = HttpTransport(server_url + "/elsewhere", start_timeout=10)
    with pytest.raises(CaseFailure, match=r"GET /elsewhere/hello: HTTP 404 Not Found"):
        transport.hello()
    transport.close()


def test_http_refused_connection() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago, so nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    transport = HttpTransport(f"http://127.0.0.1:{port}", start_timeout=10)
    with pytest.raises(CaseFailure, match="connection refused") as raised:
        transport.run(_request(0), 10)
    assert raised.value.kind == "error"


def test_http_timeout() -> None:
    with socket.socket() as silent:  # accepts connections (in the backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        transport = HttpTransport(f"http://127.0.0.1:{silent.getsockname()[1]}", start_timeout=10)
        with pytest.raises(CaseFailure, match=r"no answer within 0\.3 s") as raised:
            transport.run(_request(0), 0.3)
        assert raised.value.kind == "timeout"
        transport.close()


# -- Python ---------------------------------------------------------------------------------


class _Misbehaving:
    def __init__(self, how: str) -> None:
        self.how = how

    def hello(self) -> dict[str, Any]:
        return ReferenceImplementation().hello()

    def run(self, request: dict[str, Any]) -> Any:
        request["case"]["steps"].clear()  # must not reach the runner's own copy
        if self.how == "hang":
            time.sleep(5)
        if self.how == "raise":
            raise RuntimeError("no session today")
        if self.how == "set":
            return {"seq": request["seq"], "outputs": {"a"}}
        return [request["seq"]]


@pytest.mark.parametrize(
    ("how", "kind", "message"),
    [
        ("hang", "timeout", "run() did not return within 0.2 s"),
        ("raise", "crash", "run() raised RuntimeError: no session today"),
        ("set", "error", "run() returned what JSON cannot carry"),
        ("list", "error", "not a protocol message: run() returned list"),
    ],
    ids=["hang", "raise", "set", "list"],
)
def test_python_failures(how: str, kind: str, message: str) -> None:
    transport = PythonTransport(_Misbehaving(how), start_timeout=10)
    request = _request(0)
    with pytest.raises(CaseFailure) as raised:
        transport.run(request, 0.2)
    assert raised.value.kind == kind
    assert raised.value.message.startswith(message)
    assert request["case"]["steps"] == STEPS
    if how == "raise":
        assert "Traceback" in raised.value.stderr
    transport.close()


def test_python_transport_carries_the_reference() -> None:
    transport = transport_factory("reference", start_timeout=10)()
    assert transport.hello()["protocol"] == hello_request()["protocol"]
    assert transport.run(_request(5), 10) == {"seq": 5, "outputs": EXPECTED}
    transport.close()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"seq": 1, "outputs": ["\\ud800"]}', "the response holds a lone surrogate (\\ud800)"),
        (b"\xff{}", "the response is not UTF-8: byte 0xff at offset 0"),
        (b"{'seq': 1}", "the response is not JSON (Expecting property name enclosed in double"),
        (b'"text"', "not a protocol message: a JSON string: '\"text\"'"),
    ],
    ids=["lone-surrogate", "not-utf8", "not-json", "string"],
)
def test_what_a_transport_refuses(data: bytes, message: str) -> None:
    with pytest.raises(CaseFailure) as raised:
        decode_message(data)
    assert raised.value.kind == "error"
    assert raised.value.message.startswith(message)


def test_escaped_characters_pass() -> None:
    assert decode_message(b'{"outputs": ["\\ud83d\\ude00 \\u00e9"]}') == {"outputs": ["😀 é"]}


def test_python_lone_surrogate() -> None:
    class Surrogate(_Misbehaving):
        def run(self, request: dict[str, Any]) -> Any:
            return {"seq": request["seq"], "outputs": ["\ud800"]}

    transport = PythonTransport(Surrogate("surrogate"), start_timeout=10)
    with pytest.raises(CaseFailure, match="lone surrogate"):
        transport.run(_request(0), 10)
    transport.close()


# -- hostile answers, limits and deadlines ----------------------------------------------------


def _deep(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


class _Answers:
    """A python: implementation whose run() returns a given value."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def hello(self) -> dict[str, Any]:
        return ReferenceImplementation().hello()

    def run(self, request: dict[str, Any]) -> Any:
        return self.value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (_deep(100_000), "run() returned what is refused: arrays and objects nest deeper than"),
        ({"seq": 10**5000}, "run() returned what JSON cannot carry: Exceeds the limit"),
        ({"seq": 10**1500}, "run() returned what is refused: an integer of 1,501 digits"),
        ({"seq": float("nan")}, "run() returned what JSON cannot carry: Out of range float"),
        ({"seq": 1e400}, "run() returned what JSON cannot carry: Out of range float"),
    ],
    ids=["deep-nesting", "5000-digits", "1500-digits", "nan", "1e400"],
)
def test_python_hostile_answers_are_the_case_error(value: Any, message: str) -> None:
    transport = PythonTransport(_Answers(value), start_timeout=10)
    with pytest.raises(CaseFailure) as raised:
        transport.run(_request(0), 10)
    assert raised.value.kind == "error"
    assert raised.value.message.startswith(message)
    transport.close()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "arrays and objects nest deeper than 256 levels"),
        (b'{"seq": ' + b"1" * 5000 + b"}", "an integer of 5,000 digits (at most 1,000)"),
        (b'{"seq": NaN}', "NaN is not JSON"),
        (b'{"seq": -Infinity}', "-Infinity is not JSON"),
        (b'{"seq": 1e400}', "the number 1e400 is too large to be a finite number"),
    ],
    ids=["deep-nesting", "huge-integer", "nan", "infinity", "1e400"],
)
def test_hostile_json_is_refused_with_its_reason(data: bytes, message: str) -> None:
    with pytest.raises(CaseFailure) as raised:
        decode_message(data)
    assert raised.value.kind == "error"
    assert raised.value.message.startswith(f"the response is refused: {message}")


def test_no_timeout_is_clamped_on_every_transport(server_url: str) -> None:
    inf = float("inf")
    transports = [
        PythonTransport(ReferenceImplementation(), start_timeout=inf),
        JsonLinesTransport(
            [sys.executable, "-m", "ctxconf", "serve", "--stdio"], start_timeout=inf
        ),
        HttpTransport(server_url, start_timeout=inf),
    ]
    for transport in transports:
        try:
            assert transport.hello()["protocol"] == 1
            assert transport.run(_request(0), inf) == {"seq": 0, "outputs": EXPECTED}
        finally:
            transport.close()


def test_http_reconnects_when_the_kept_alive_connection_was_closed_before_sending(
    server_url: str,
) -> None:
    transport = HttpTransport(server_url, start_timeout=10)
    try:
        transport.hello()
        connection = transport._connection
        assert connection is not None and connection.sock is not None
        connection.sock.shutdown(socket.SHUT_RD)  # reads as the server's close, before sending
        assert transport.run(_request(1), 10) == {"seq": 1, "outputs": EXPECTED}
        assert transport._connection is not connection
    finally:
        transport.close()


def test_http_a_server_closing_idle_connections_costs_nothing() -> None:
    from ctxconf.runner import serve

    server = make_http_server("127.0.0.1", 0, ReferenceImplementation())
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    original = serve.IDLE_SECONDS
    serve.IDLE_SECONDS = 0.2
    transport = HttpTransport(f"http://127.0.0.1:{server.server_address[1]}", start_timeout=10)
    try:
        transport.hello()
        time.sleep(0.6)  # the server has closed the idle connection by now
        assert transport.run(_request(2), 10) == {"seq": 2, "outputs": EXPECTED}
    finally:
        serve.IDLE_SECONDS = original
        transport.close()
        server.shutdown()
        server.server_close()


def test_close_kills_the_whole_group_even_when_sigterm_is_ignored() -> None:
    transport = _faux("ignore_sigterm", start_timeout=10)
    transport.hello()
    assert transport.run(_request(0), 10)["outputs"] == EXPECTED
    child = int(transport.take_stderr().split("child pid ")[1].split()[0])
    assert _alive(child)
    started = time.monotonic()
    transport.close()
    assert time.monotonic() - started < 5
    deadline = time.monotonic() + 2
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "a child that ignores SIGTERM outlived close()"


def test_pyproc_is_the_module_in_a_child_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "besides.py").write_text(
        "from ctxconf.runner.reference_impl import hello, run\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    transport = transport_factory("pyproc:besides", start_timeout=10)()
    try:
        assert isinstance(transport, JsonLinesTransport)
        assert transport.hello() == ReferenceImplementation().hello()
        assert transport.run(_request(4), 10) == {"seq": 4, "outputs": EXPECTED}
    finally:
        transport.close()


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ("pyproc:", UsageError, "--impl pyproc: needs a module name"),
        ("pyproc:ctxconf_no_such_module", ImplementationStartError, "no such module"),
    ],
    ids=["empty", "missing"],
)
def test_unusable_pyproc_specs(spec: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        transport_factory(spec, start_timeout=1)


def test_close_from_another_thread_ends_a_case_under_way() -> None:
    """An interrupted run closes its transports while their cases still wait for answers."""
    transport = _faux("hang", start_timeout=10)
    transport.hello()
    failures: list[CaseFailure] = []

    def hung_case() -> None:
        try:
            transport.run(_request(1), 60)
        except CaseFailure as failure:
            failures.append(failure)

    worker = threading.Thread(target=hung_case)
    worker.start()
    deadline = time.monotonic() + 10
    while "child pid" not in (stderr := transport.take_stderr()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(stderr.split("child pid ")[1].split()[0])
    started = time.monotonic()
    transport.close()
    worker.join(10)
    assert not worker.is_alive() and time.monotonic() - started < 5
    assert [f.kind for f in failures] == ["crash"]
    assert "killed by SIGKILL" in failures[0].message
    deadline = time.monotonic() + 2
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)
    transport.close()
