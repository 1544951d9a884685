"""`ctxconf serve`: the reference over JSON lines and over HTTP, as an implementation runs."""

from __future__ import annotations

import http.client
import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ctxconf.cli import main
from ctxconf.paths import bundled_spec_dir, schemas_dir
from ctxconf.runner.reference_impl import ReferenceImplementation

from .cli import ctxconf

CASES: list[dict[str, Any]] = json.loads(
    (bundled_spec_dir() / "conformance" / "context.json").read_text(encoding="utf-8")
)["cases"]


def _schema(name: str) -> Draft202012Validator:
    path = schemas_dir() / "protocol" / name
    return Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


def _run(seq: int, case: dict[str, Any]) -> dict[str, Any]:
    return {"cmd": "run", "seq": seq, "area": "context",
            "case": {k: case[k] for k in ("limits", "steps") if k in case}}


def test_stdio_answers_line_by_line_until_stop() -> None:
    requests = [{"cmd": "hello", "protocol": 1}]
    requests += [_run(seq, case) for seq, case in enumerate(CASES[:3])]
    lines = [json.dumps(r) for r in requests]
    lines.insert(2, "not json")  # ignored, with a word on stderr
    lines.append(json.dumps({"cmd": "dance", "seq": 9}))
    lines.append(json.dumps({"cmd": "stop"}))
    lines.append(json.dumps({"cmd": "hello", "protocol": 1}))  # after stop: never read
    done = subprocess.run(
        [sys.executable, "-m", "ctxconf", "serve", "--stdio"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == 5
    assert list(_schema("hello-response.json").iter_errors(answers[0])) == []
    for seq, (answer, case) in enumerate(zip(answers[1:4], CASES[:3], strict=True)):
        assert list(_schema("run-response.json").iter_errors(answer)) == []
        assert answer == {"seq": seq, "outputs": case["expect"]}
    assert answers[4] == {"seq": 9, "error": "unknown cmd 'dance'"}
    assert "ignoring a line that is not JSON" in done.stderr


@pytest.fixture
def http_server() -> Any:
    server = subprocess.Popen(
        [sys.executable, "-m", "ctxconf", "serve", "--http", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
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
    request = {"cmd": "run", "seq": 0, "area": "context",
               "case": {"steps": [{"op": "output", "id": "#0abc", "tool": "bash",
                                   "args": {}, "text": ""}]}}
    done = subprocess.run(
        [sys.executable, "-m", "ctxconf", "serve", "--stdio", "--spec", str(spec)],
        input=json.dumps(request) + "\n", capture_output=True, text=True, timeout=60,
    )
    answer = json.loads(done.stdout)
    assert answer == ReferenceImplementation(spec).run(request)
    assert "(nothing)" in answer["outputs"][0]
    assert answer != ReferenceImplementation().run(request)
