"""What the proxy's tests share: a proxy on a thread in front of an upstream, its record read
and held to its schema, and the raw HTTP exchanges the hostile tests make."""

from __future__ import annotations

import http.client
import io
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from ctxconf.proxy import Options, ProxyThread, read_record
from tests.paths import ROOT

SCHEMA = json.loads((ROOT / "schemas" / "proxy-record.schema.json").read_text(encoding="utf-8"))
WAIT = 60.0  # seconds a poll waits for what a busy machine is sure to do in the end


@contextmanager
def proxied(upstream: str, folder: Path, **options: Any) -> Iterator[ProxyThread]:
    with ProxyThread(Options(upstream, folder, **options), io.StringIO()) as running:
        yield running


def lines(folder: Path) -> list[dict[str, Any]]:
    """Every line of the one record in `folder`, each held to the schema."""
    (path,) = sorted(folder.glob("proxy-*.jsonl"))
    read = read_record(path)
    assert not read.torn
    validator = Draft202012Validator(SCHEMA)
    for line in read.lines:
        problems = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(line)]
        assert problems == [], line
    return read.lines


def exchanges(folder: Path) -> list[dict[str, Any]]:
    return [line for line in lines(folder) if line["kind"] == "exchange"]


def wait_for(check: Any, what: str) -> None:
    """Poll `check()` until it holds; a test fails only if it never does."""
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.02)


def recorded(running: ProxyThread, count: int) -> None:
    """Wait until `count` exchanges are written (each is shown once written)."""
    live = running.proxy.live
    wait_for(lambda: live.counts()["exchanges"] >= count, f"{count} exchanges recorded")


def post(
    url: str, path: str, body: bytes, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One POST over a connection of its own, closed after: (status, headers, body)."""
    host = url.removeprefix("http://")
    connection = http.client.HTTPConnection(host, timeout=WAIT)
    try:
        connection.request("POST", path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def secrets_absent(folder: Path, *secrets: str) -> list[str]:
    """The secrets found in any file of `folder`, and where."""
    found = []
    for path in folder.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [f"{path.name}: {s}" for s in secrets if s in text]
    return found
