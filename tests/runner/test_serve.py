"""`ctxconf serve`: the reference over JSON lines and over HTTP, as an implementation runs."""

from __future__ import annotations

import http.client
import io
import json
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ctxconf.cli import main
from ctxconf.runner.reference_impl import ReferenceImplementation
from ctxconf.specdata.paths import bundled_spec_dir, schemas_dir
from tests.cli import ctxconf

pytestmark = pytest.mark.slow  # servers, clients and their deadlines

CASES: list[dict[str, Any]] = json.loads(
    (bundled_spec_dir() / "conformance" / "context.json").read_text(encoding="utf-8")
)["cases"]


def _schema(name: str) -> Draft202012Validator:
    path = schemas_dir() / "protocol" / name
    return Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


def _run(seq: int, case: dict[str, Any]) -> dict[str, Any]:
    return {
        "cmd": "run",
        "seq": seq,
        "area": "context",
        "case": {k: case[k] for k in ("limits", "steps") if k in case},
    }


def test_stdio_answers_line_by_line_until_stop() -> None:
    requests = [{"cmd": "hello", "protocol": 1}]
    requests += [_run(seq, case) for seq, case in enumerate(CASES[:3])]
    lines = [json.dumps(r) for r in requests]
    lines.insert(2, "not json")  # answered with an error, and serving goes on
    lines.insert(3, "")  # a blank line is no request
    lines.append(json.dumps({"cmd": "dance", "seq": 9}))
    lines.append(json.dumps({"cmd": "stop"}))
    lines.append(json.dumps({"cmd": "hello", "protocol": 1}))  # after stop: never read
    done = subprocess.run(
        [sys.executable, "-m", "ctxconf", "serve", "--stdio"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == 6
    assert list(_schema("hello-response.json").iter_errors(answers[0])) == []
    assert answers[2] == {"error": answers[2]["error"]}
    assert answers[2]["error"].startswith("the request is not JSON: ")
    for seq, (answer, case) in enumerate(zip(answers[1:2] + answers[3:5], CASES[:3], strict=True)):
        assert list(_schema("run-response.json").iter_errors(answer)) == []
        assert answer == {"seq": seq, "outputs": case["expect"]}
    assert answers[5] == {"seq": 9, "error": "unknown cmd 'dance'"}
    assert done.stderr == ""


# Each malformed request, and the start of the error it gets: over --stdio as an error answer,
# over HTTP as a 400 with the same JSON error body.
MALFORMED = [
    (b"{oops", "the request is not JSON: "),
    (b"[1, 2]", 'a request is a JSON object with a "cmd"'),
    (b'"run"', 'a request is a JSON object with a "cmd"'),
    (
        b'{"cmd": "run", "seq": 3, "area": "context", "case": {"steps": [{"op": "read"}, 7]}}',
        "/case/steps/1 is not a JSON object",
    ),
    (b"[" * 100_000 + b"]" * 100_000, "the request is refused: arrays and objects nest deeper"),
    (b'{"cmd": "run", "seq": ' + b"9" * 5000 + b"}", "the request is refused: an integer of 5,000"),
    (b'{"cmd": "run", "seq": NaN}', "the request is refused: NaN is not JSON"),
    (b'{"cmd": "run", "seq": 1e400}', "the request is refused: the number 1e400 is too large"),
    (b"\xff\xfe", "the request is not JSON: "),
]
MALFORMED_IDS = [
    "non-json",
    "array",
    "string",
    "non-object-step",
    "deep-nesting",
    "huge-integer",
    "nan",
    "1e400",
    "non-utf8",
]


def test_stdio_answers_each_malformed_line_with_an_error_and_goes_on() -> None:
    hello = json.dumps({"cmd": "hello", "protocol": 1}).encode()
    lines = [line for bad, _ in MALFORMED for line in (bad, hello)]
    done = subprocess.run(
        [sys.executable, "-m", "ctxconf", "serve", "--stdio"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == 2 * len(MALFORMED)
    for (_, message), refusal, greeting in zip(MALFORMED, answers[::2], answers[1::2], strict=True):
        assert set(refusal) == ({"seq", "error"} if "steps/1" in message else {"error"})
        assert refusal["error"].startswith(message)
        assert greeting == ReferenceImplementation().hello()


def test_stdio_refuses_a_line_longer_than_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxconf.runner import serve

    monkeypatch.setattr(serve, "MAX_REQUEST_BYTES", 1000)
    hello = json.dumps({"cmd": "hello", "protocol": 1}).encode()
    stdin = io.BytesIO(b'{"cmd": "' + b"x" * 5000 + b'"}\n' + hello + b"\n")
    stdout = io.BytesIO()
    assert serve.serve_stdio(ReferenceImplementation(), stdin, stdout) == 0
    answers = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert answers == [
        {"error": "a line longer than 1000 bytes"},
        ReferenceImplementation().hello(),
    ]


@pytest.fixture
def http_server() -> Any:
    server = subprocess.Popen(
        [sys.executable, "-m", "ctxconf", "serve", "--http", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    url = server.stdout.readline().strip()
    yield server, url
    if server.poll() is None:
        server.kill()
    server.communicate()


def _request(url: str, method: str, path: str, body: bytes | None = None) -> tuple[int, Any]:
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request(method, path, body=body)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_http_answers_hello_and_run_and_stops_on_interrupt(http_server: Any) -> None:
    server, url = http_server
    assert url.startswith("http://127.0.0.1:") and not url.endswith(":0")
    status, hello = _request(url, "GET", "/hello")
    assert status == 200 and hello == ReferenceImplementation().hello()
    case = CASES[1]
    status, answer = _request(url, "POST", "/run", json.dumps(_run(4, case)).encode())
    assert (status, answer) == (200, {"seq": 4, "outputs": case["expect"]})
    status, answer = _request(url, "POST", "/run", b"{oops")
    assert status == 400 and "not JSON" in answer["error"]
    status, answer = _request(url, "GET", "/elsewhere")
    assert status == 404
    server.send_signal(signal.SIGINT)
    assert server.wait(timeout=10) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--http", "localhost:http"], "is not [HOST:]PORT"),
        (["--http", "99999"], "is not [HOST:]PORT"),
        ([], "one of the arguments --stdio --http is required"),
        (["--stdio", "--http", "0"], "not allowed with argument"),
    ],
    ids=["port-name", "port-range", "no-mode", "two-modes"],
)
def test_unusable_serve_arguments(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    try:  # the same `main` as `python -m ctxconf`, in this process
        code = main(["serve", *args])
    except SystemExit as stopped:  # argparse's own errors
        code = int(stopped.code or 0)
    assert code == 2
    assert message in capsys.readouterr().err


def test_unusable_serve_arguments_as_a_process() -> None:
    done = ctxconf("serve", "--http", "99999", expect=2)
    assert "ctxconf serve: --http '99999' is not [HOST:]PORT" in done.stderr


def test_serve_uses_the_loop_json_of_spec(tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    shutil.copytree(bundled_spec_dir(), spec)
    loop = json.loads((spec / "loop.json").read_text(encoding="utf-8"))
    loop["context"]["texts"]["no_output"] = "(nothing)"
    (spec / "loop.json").write_text(json.dumps(loop), encoding="utf-8")
    request = {
        "cmd": "run",
        "seq": 0,
        "area": "context",
        "case": {
            "steps": [{"op": "output", "id": "#0abc", "tool": "bash", "args": {}, "text": ""}]
        },
    }
    done = subprocess.run(
        [sys.executable, "-m", "ctxconf", "serve", "--stdio", "--spec", str(spec)],
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    answer = json.loads(done.stdout)
    assert answer == ReferenceImplementation(spec).run(request)
    assert "(nothing)" in answer["outputs"][0]
    assert answer != ReferenceImplementation().run(request)


def _raw(url: str, data: bytes, method: str = "POST") -> tuple[int, Any, http.client.HTTPResponse]:
    """Send `data` as it is (a request line, headers, maybe a body) and read one answer."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(data)
        response = http.client.HTTPResponse(sock, method=method)
        response.begin()
        body = response.read()
    return response.status, json.loads(body), response


def _post(body: bytes, path: str = "/run", headers: str = "") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{headers}"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


@pytest.mark.parametrize(("body", "message"), MALFORMED, ids=MALFORMED_IDS)
def test_http_answers_a_malformed_body_400(http_server: Any, body: bytes, message: str) -> None:
    _, url = http_server
    status, answer, _ = _raw(url, _post(body))
    assert status == 400
    assert answer["error"].startswith(message)


@pytest.mark.parametrize(
    ("request_bytes", "status", "message"),
    [
        (b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n", 404, "no /nowhere: the protocol has"),
        (b"GET /run HTTP/1.1\r\nHost: x\r\n\r\n", 405, "GET /run: the protocol has"),
        (_post(b"{}", "/hello"), 405, "POST /hello: the protocol has"),
        (b"PUT /run HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 405, "PUT /run"),
        (
            b"POST /run HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n",
            400,
            "a bad Content-Length: ten",
        ),
        (
            b"POST /run HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
            400,
            "a bad Content-Length: -5",
        ),
        (
            b"POST /run HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
            400,
            "a bad Content-Length: 2, 3",
        ),
        (b"POST /run HTTP/1.1\r\nHost: x\r\n\r\n", 411, "a POST needs a Content-Length"),
        (
            b"POST /run HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"2\r\n{}\r\n0\r\n\r\n",
            411,
            "send the body with a Content-Length",
        ),
        (
            b"POST /run HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000000000\r\n\r\n",
            413,
            "a body of 100000000000000 bytes (at most 67108864)",
        ),
        (
            b"POST /run HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000000000\r\n"
            b"Expect: 100-continue\r\n\r\n",
            413,
            "a body of 100000000000000 bytes",
        ),
        (b"GET /hello HTTP/one\r\n\r\n", 400, "Bad request version"),
        (b"GET /hello HTTP/1.1\r\n" + b"X-A: b\r\n" * 200 + b"\r\n", 431, "Too many headers"),
    ],
    ids=[
        "unknown-path",
        "get-run",
        "post-hello",
        "put-run",
        "content-length-word",
        "content-length-negative",
        "content-length-twice",
        "no-content-length",
        "chunked",
        "body-too-large",
        "body-too-large-expect",
        "bad-request-line",
        "too-many-headers",
    ],
)
def test_http_answers_a_malformed_request_4xx_in_json(
    http_server: Any, request_bytes: bytes, status: int, message: str
) -> None:
    server, url = http_server
    got, answer, response = _raw(url, request_bytes)
    assert got == status
    assert response.getheader("Content-Type") == "application/json"
    assert message in answer["error"]
    if status == 405:
        assert response.getheader("Allow") in ("GET", "POST")
    assert _request(url, "GET", "/hello")[0] == 200  # and the server goes on
    server.send_signal(signal.SIGINT)
    assert server.wait(timeout=10) == 0
    assert "Traceback" not in server.stderr.read()


def test_http_does_not_read_a_gigabyte_body(http_server: Any) -> None:
    _, url = http_server
    host, port = url.removeprefix("http://").split(":")
    gigabyte = 1 << 30
    sent = 0
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=2) as sock:
        sock.sendall(
            f"POST /run HTTP/1.1\r\nHost: x\r\nContent-Length: {gigabyte}\r\n\r\n".encode()
        )
        block = b"[" * (1 << 20)
        try:
            while sent < gigabyte:
                sock.sendall(block)
                sent += len(block)
        except OSError:  # refused and closed, or no longer read: either way not taken in
            pass
    assert sent < gigabyte // 4
    assert time.monotonic() - started < 10
    assert _request(url, "GET", "/hello")[0] == 200


def test_http_serves_200_clients_at_once(http_server: Any) -> None:
    _, url = http_server
    host, port = url.removeprefix("http://").split(":")
    assert host == "127.0.0.1"
    body = json.dumps(_run(0, CASES[1])).encode()
    socks = [socket.create_connection((host, int(port)), timeout=30) for _ in range(200)]
    try:
        for sock in socks:  # every client connected before any sends
            sock.sendall(_post(body))
        answers = []
        for sock in socks:
            response = http.client.HTTPResponse(sock, method="POST")
            response.begin()
            answers.append((response.status, json.loads(response.read())))
    finally:
        for sock in socks:
            sock.close()
    assert answers == [(200, {"seq": 0, "outputs": CASES[1]["expect"]})] * 200


@pytest.fixture
def quick_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, int]]:
    """The server in this process, with a 1 s request deadline and idle timeout."""
    from ctxconf.runner import serve

    monkeypatch.setattr(serve, "REQUEST_SECONDS", 1.0)
    monkeypatch.setattr(serve, "IDLE_SECONDS", 1.0)
    server = serve.make_http_server("127.0.0.1", 0, ReferenceImplementation())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield "127.0.0.1", int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes `sock` within `seconds` (reads until the end or a reset)."""
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        pass
    except TimeoutError:
        return False
    return True


def test_http_drops_a_slowloris_client(quick_server: tuple[str, int]) -> None:
    started = time.monotonic()
    with socket.create_connection(quick_server, timeout=5) as sock:
        sock.sendall(b"GET /hello HTTP/1.1\r\n")
        try:
            for _ in range(8):  # a header byte every 0.3 s: each read is quick, the whole is not
                sock.sendall(b"X")
                time.sleep(0.3)
        except OSError:
            pass
        assert _closed_within(sock, 5)
    assert time.monotonic() - started < 4


def test_http_drops_a_slow_body_and_an_idle_connection(quick_server: tuple[str, int]) -> None:
    with socket.create_connection(quick_server, timeout=5) as sock:
        sock.sendall(b"POST /run HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        assert _closed_within(sock, 3)
    with socket.create_connection(quick_server, timeout=5) as sock:
        started = time.monotonic()
        assert _closed_within(sock, 3)
        assert 0.5 < time.monotonic() - started < 3


def test_http_backlog_holds_200_clients_before_any_is_accepted() -> None:
    from ctxconf.runner import serve

    server = serve.make_http_server("127.0.0.1", 0, ReferenceImplementation())
    address = ("127.0.0.1", int(server.server_address[1]))
    socks: list[socket.socket] = []
    responses: list[http.client.HTTPResponse] = []
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    try:  # nothing accepts yet: each connection must wait in the listen backlog
        for _ in range(200):
            # A hang guard only: a loaded machine may take seconds to serve 200 in turn.
            socks.append(socket.create_connection(address, timeout=60))
            socks[-1].sendall(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        serving.start()
        for sock in socks:
            responses.append(http.client.HTTPResponse(sock))
            responses[-1].begin()
            assert responses[-1].status == 200
            responses[-1].read()
    finally:
        if serving.is_alive():
            server.shutdown()
        server.server_close()
        for response in responses:
            response.close()
        for sock in socks:
            sock.close()


def test_stdio_serves_a_module_and_answers_what_it_raises_as_an_error(tmp_path: Path) -> None:
    (tmp_path / "flaky.py").write_text(
        "from ctxconf.runner.reference_impl import hello\n"
        "def run(request):\n"
        "    raise RuntimeError('no session today')\n",
        encoding="utf-8",
    )
    requests = [{"cmd": "hello", "protocol": 1}, _run(6, CASES[0]), {"cmd": "stop"}]
    done = subprocess.run(
        [sys.executable, "-m", "ctxconf", "serve", "--stdio", "--module", "flaky"],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers == [
        ReferenceImplementation().hello(),
        {"seq": 6, "error": "the implementation raised RuntimeError: no session today"},
    ]


def test_serve_a_module_that_cannot_be_imported(tmp_path: Path) -> None:
    done = ctxconf("serve", "--stdio", "--module", "ctxconf_no_such_module", cwd=tmp_path, expect=2)
    assert "ctxconf serve: --module ctxconf_no_such_module: cannot import the module" in (
        done.stderr
    )
