"""`ctxconf proxy` as users run it: started on port 0 it prints the address it listens on,
forwards, shows a line per exchange with the audit's view of it, keeps the audit's page of the
run, and on Ctrl-C prints the summary, the estimate's calibration and the audit's summary, and
closes its record;
a listen address off the loopback and an upstream that is not a URL are refused."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ctxconf.probe.scenario import Step
from ctxconf.probe.server import MockServer, Script
from tests.cli import ctxconf
from tests.proxy.helpers import WAIT, lines, post, secrets_absent

STEPS = [Step("text", "Hello.", None)]


@pytest.mark.slow
def test_the_command_prints_its_address_records_and_ends_on_ctrl_c(tmp_path: Path) -> None:
    record = tmp_path / "record"
    with MockServer(Script(STEPS, "/work"), tmp_path / "log.jsonl") as mock:
        process = subprocess.Popen(
            [sys.executable, "-m", "ctxconf", "proxy", "--upstream", mock.base_url,
             "--listen", "127.0.0.1:0", "--record", str(record)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        try:
            assert process.stdout is not None
            first = process.stdout.readline()
            found = re.search(r"listening on (http://127\.0\.0\.1:\d+),", first)
            assert found, first + (process.stderr.read() if process.stderr else "")
            body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "go"}]})
            headers = {"Content-Type": "application/json", "x-api-key": "sk-ant-cli-secret"}
            status, _, _ = post(found.group(1), "/v1/messages", body.encode(), headers)
            assert status == 200
            while "#1" not in (shown := process.stdout.readline()):
                assert shown, "the exchange's line never came"
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=WAIT)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert process.returncode == 0, err
    assert "Traceback" not in err
    assert "  200  m  in " in shown and shown.rstrip().endswith("  | lost 0")
    assert re.search(r"ctxconf proxy: 1 request \(1 complete\); input \d+ tokens", out), out
    assert re.search(r"the provider's input per token estimated: m 1\.000 \(", out), out
    assert "ctxconf audit: 1 session(s), 1 request(s), 0 lost the cache" in out
    assert "<title>ctxconf audit</title>" in (record / "live.html").read_text(encoding="utf-8")
    kinds = [line["kind"] for line in lines(record)]
    assert kinds == ["run", "exchange", "end"]
    assert secrets_absent(record, "sk-ant-cli-secret") == []


def test_a_listen_address_off_the_loopback_is_refused(tmp_path: Path) -> None:
    done = ctxconf("proxy", "--upstream", "http://127.0.0.1:9", "--listen", "0.0.0.0:0",
                   "--record", tmp_path, expect=2)  # fmt: skip
    assert "not a loopback address" in done.stderr and "--allow-remote" in done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing started, nothing written


@pytest.mark.parametrize(
    ("upstream", "said"),
    [
        ("api.anthropic.com", "is not an http:// or https:// URL"),
        ("https://user:pw@api.example.com", "without a query, a fragment or credentials"),
    ],
)
def test_an_upstream_that_is_not_a_base_url_is_refused(
    tmp_path: Path, upstream: str, said: str
) -> None:
    done = ctxconf("proxy", "--upstream", upstream, "--record", tmp_path, expect=2)
    assert said in done.stderr
    assert "pw" not in done.stderr.replace(said, "")
