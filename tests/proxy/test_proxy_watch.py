"""What the proxy adds to its record and console past forwarding: per model, the provider's
input beside the cache audit's estimate (the mock counts by the estimate, so its ratio is 1),
in the end line and the summary; and a watcher's words on each exchange's line, a watcher that
fails costing its words and nothing else."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

import pytest

from ctxconf.probe.scenario import Step
from ctxconf.probe.server import MockServer, Script
from ctxconf.proxy import Options, ProxyThread
from tests.proxy.helpers import lines, post, recorded

MARK = {"type": "ephemeral"}
JSON = {"Content-Type": "application/json", "x-api-key": "sk-ant-watch-secret"}
BODY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 20,
    "system": [{"type": "text", "text": "Be brief. " * 600, "cache_control": MARK}],
    "messages": [{"role": "user", "content": "go"}],
}


class Words:
    """A watcher that says each exchange's number, or fails on the second."""

    def __init__(self, fail_on: int | None = None) -> None:
        self.record: Path | None = None
        self.seen: list[int] = []
        self.fail_on = fail_on

    def started(self, record: Path) -> None:
        self.record = record

    def exchange(self, line: Mapping[str, Any]) -> str:
        self.seen.append(int(line["n"]))
        if line["n"] == self.fail_on:
            raise RuntimeError("broken view")
        return f"watched #{line['n']}"

    def ended(self, out: TextIO) -> None:
        out.write("watcher ended\n")


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[MockServer]:
    with MockServer(Script([Step("text", "Done.", None)], "/work"), tmp_path / "log") as server:
        yield server


@pytest.mark.parametrize("hash_only", [False, True], ids=["bodies", "hash-only"])
def test_the_end_line_holds_each_model_s_ratio_to_the_estimate(
    mock: MockServer, tmp_path: Path, hash_only: bool
) -> None:
    folder = tmp_path / "record"
    console = io.StringIO()
    with ProxyThread(Options(mock.base_url, folder, hash_only=hash_only), console) as running:
        for _ in range(2):
            assert post(running.url, "/v1/messages", json.dumps(BODY).encode(), JSON)[0] == 200
        recorded(running, 2)
        summary = running.proxy.live.calibration.words()
    end = lines(folder)[-1]
    exchanges = [line for line in lines(folder) if line["kind"] == "exchange"]
    given = sum(line["usage"]["input"] for line in exchanges)
    assert end["calibration"] == {
        "claude-sonnet-4-5": {"requests": 2, "input": given, "estimate": given, "ratio": 1.0}
    }
    assert summary == f"claude-sonnet-4-5 1.000 ({given:,} / {given:,} over 2 requests)"


def test_a_watcher_s_words_end_each_line_and_its_failure_costs_only_them(
    mock: MockServer, tmp_path: Path
) -> None:
    folder = tmp_path / "record"
    console = io.StringIO()
    watcher = Words(fail_on=2)
    with ProxyThread(Options(mock.base_url, folder), console, watcher) as running:
        for _ in range(3):
            assert post(running.url, "/v1/messages", json.dumps(BODY).encode(), JSON)[0] == 200
        recorded(running, 3)
        assert watcher.record == running.proxy.path
    shown = console.getvalue().splitlines()
    assert shown[0].endswith("  | watched #1")
    assert shown[1].endswith("  | [the live view failed: RuntimeError: broken view]")
    assert shown[2].endswith("  | watched #3")
    assert watcher.seen == [1, 2, 3]
    assert len([line for line in lines(folder) if line["kind"] == "exchange"]) == 3
