"""The audit's live view of a proxy's record, fed the lines the real proxy wrote: a changed
system prompt is a loss with its cause from the bytes; identical bodies the provider did not
read are a provider-side miss; a simulator that reads what the provider did not is said with
both figures; bodies are let go past the count and past the provider's longest lifetime; the
page reloads itself while the run goes on and not once it has ended, and the end prints the
audit's summary of the run; a burst of exchanges is one drawing of the page, and the last change
is always drawn."""

from __future__ import annotations

import asyncio
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxconf.audit import live
from ctxconf.audit.live import LiveAudit
from ctxconf.probe.scenario import Step
from ctxconf.probe.server import MockServer, Script
from ctxconf.proxy import Options, ProxyThread
from tests.proxy.helpers import exchanges, post, proxied, recorded
from tests.proxy.upstreams import RawUpstream

HEADERS = {"Content-Type": "application/json", "x-api-key": "sk-ant-live-secret"}
LONG = "You are a careful helper. " * 400  # about 2,600 tokens by the estimate
REFRESH = '<meta http-equiv="refresh"'


def _body(turns: int, system: str = LONG) -> bytes:
    messages: list[dict[str, Any]] = []
    for n in range(turns):
        messages.append({"role": "user", "content": f"turn {n}"})
        if n < turns - 1:
            messages.append({"role": "assistant", "content": f"answer {n}"})
    return json.dumps(
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 50,
            "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
            "messages": messages,
        }
    ).encode()


def answering(usage: dict[str, int]) -> Any:
    """An upstream that answers every request with an Anthropic message of `usage`."""
    answer = {"id": "msg_1", "type": "message", "role": "assistant",
              "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "ok"}],
              "stop_reason": "end_turn", "usage": usage}  # fmt: skip
    payload = json.dumps(answer).encode()

    async def handler(up: RawUpstream, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        while True:  # one connection may carry every request
            await up.read_request(r)
            w.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
            w.write(f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
            await w.drain()

    return handler


def _recorded(upstream: str, folder: Path, bodies: list[bytes]) -> list[dict[str, Any]]:
    with proxied(upstream, folder) as running:
        for body in bodies:
            assert post(running.url, "/v1/messages", body, HEADERS)[0] == 200
        recorded(running, len(bodies))
    return exchanges(folder)


def _watched(folder: Path, lines: list[dict[str, Any]], page: Path | None = None) -> list[str]:
    watcher = LiveAudit(page)
    (record,) = folder.glob("proxy-*.jsonl")
    watcher.started(record)
    return [watcher.exchange(line) for line in lines]


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[MockServer]:
    with MockServer(Script([Step("text", "Done.", None)], "/work"), tmp_path / "log") as server:
        yield server


def test_a_changed_system_prompt_is_a_loss_with_its_cause_from_the_bytes(
    mock: MockServer, tmp_path: Path
) -> None:
    folder = tmp_path / "record"
    lines = _recorded(mock.base_url, folder, [_body(1), _body(2, "Today is 2026-12-01. " + LONG)])
    first, second = _watched(folder, lines)
    assert first == "lost 0"
    written = lines[0]["usage"]["written"]
    assert second.startswith(f"lost {written:,}: ")
    assert "[bytes]" in second and "simulator" not in second  # the mock read as simulated


def test_identical_bodies_the_provider_did_not_read_are_its_miss(tmp_path: Path) -> None:
    folder = tmp_path / "record"
    usage = {"input_tokens": 10, "cache_read_input_tokens": 0,
             "cache_creation_input_tokens": 2700, "output_tokens": 5}  # fmt: skip
    with RawUpstream(answering(usage)) as upstream:
        lines = _recorded(upstream.url, folder, [_body(1), _body(2)])
    second = _watched(folder, lines)[1]
    assert second.startswith("lost 2,700: ")
    assert "provider-side miss: the bodies are identical within a lifetime" in second
    assert "the provider 0 of 2,710 (0%)" in second


def test_a_simulator_that_parts_from_the_provider_says_both(tmp_path: Path) -> None:
    folder = tmp_path / "record"
    usage = {"input_tokens": 10, "cache_read_input_tokens": 2700,
             "cache_creation_input_tokens": 0, "output_tokens": 5}  # fmt: skip
    with RawUpstream(answering(usage)) as upstream:
        lines = _recorded(upstream.url, folder, [_body(1)])
    (words,) = _watched(folder, lines)
    # The first request: no body before it in the record, the provider read it all.
    assert words.startswith("lost 0; an entry older than the record: the simulator reads 0 of ")
    assert words.endswith("the provider 2,700 of 2,710 (100%)")


def test_a_provider_that_reads_what_the_bodies_before_it_do_not_hold_is_the_simulators_error(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "record"
    usage = {"input_tokens": 10, "cache_read_input_tokens": 2700,
             "cache_creation_input_tokens": 0, "output_tokens": 5}  # fmt: skip
    changed = _body(2, "Today is 2026-12-01. " + LONG)  # its system prompt is not the first's
    with RawUpstream(answering(usage)) as upstream:
        lines = _recorded(upstream.url, folder, [_body(1), changed])
    second = _watched(folder, lines)[1]
    said = (
        "lost 0; the simulator's error (or an entry older than the record): the simulator reads 0"
    )
    assert second.startswith(said), second
    assert second.endswith("the provider 2,700 of 2,710 (100%)")


def test_bodies_are_let_go_past_the_count_and_the_lifetime(
    mock: MockServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "MAX_BODIES", 2)
    folder = tmp_path / "record"
    lines = _recorded(mock.base_url, folder, [_body(n) for n in (1, 2, 3, 4)])
    watcher = LiveAudit(None)
    (record,) = folder.glob("proxy-*.jsonl")
    watcher.started(record)
    for line in lines[:3]:
        watcher.exchange(line)
    (session,) = watcher.sessions.values()
    (bodies,) = session.bodies.values()
    assert bodies.indexes == [2]  # past the count, the older half let go at once
    late = {**lines[3], "time": {**lines[3]["time"], "start": lines[2]["time"]["start"] + 7200}}
    assert watcher.exchange(late).startswith("lost ")  # an hour past: the entries had ended
    assert bodies.indexes == [3]
    assert all(step.request.body is None for step in session.steps)  # read, then let go


def test_the_page_reloads_while_the_run_goes_on_and_the_end_prints_the_audit(
    mock: MockServer, tmp_path: Path
) -> None:
    folder, page = tmp_path / "record", tmp_path / "live.html"
    console = io.StringIO()
    watcher = LiveAudit(page)
    with ProxyThread(Options(mock.base_url, folder), console, watcher) as running:
        for body in (_body(1), _body(2)):
            assert post(running.url, "/v1/messages", body, HEADERS)[0] == 200
        recorded(running, 2)
        assert REFRESH in page.read_text(encoding="utf-8")
    shown = console.getvalue().splitlines()
    assert shown[0].endswith("  | lost 0") and shown[1].endswith("  | lost 0")
    ended = io.StringIO()
    watcher.ended(ended)
    assert "ctxconf audit: 1 session(s), 2 request(s), 0 lost the cache" in ended.getvalue()
    assert REFRESH not in page.read_text(encoding="utf-8")


def test_the_live_words_carry_the_providers_verdict_beside_the_bytes_cause() -> None:
    from ctxconf.audit.bytes_evidence import bytes_findings
    from ctxconf.audit.live import step_words
    from ctxconf.audit.timeline import session_timeline

    from .helpers import request
    from .test_bytes_evidence import body

    said = {"cache_miss_reason": {"type": "system_changed"}}
    requests = [
        request(1, 0, read=0, w5m=2_500, body=body("2026-12-01", 0), shape="anthropic"),
        request(
            2,
            30,
            read=0,
            w5m=2_520,
            body=body("2026-12-02", 1),
            shape="anthropic",
            diagnostics=said,
        ),
    ]
    steps = session_timeline(requests, bytes_findings(requests))
    assert step_words(steps[1]) == (
        "lost 2,500: system-date [bytes] pfx.system.no-clock; "
        "the provider says system_changed: agrees"
    )
    # Without the bytes the provider's word is the cause, said once.
    bare = [request(1, 0, read=0, w5m=2_500), request(2, 30, read=0, w5m=2_520, diagnostics=said)]
    assert step_words(session_timeline(bare)[1]) == (
        "lost 2,500: system_changed [provider] pfx.system.once"
    )


def _page_requests(page: Path) -> int:
    """How many requests the page's figures count."""
    found = re.search(r"<td>requests</td><td class=\"n\">([\d,]+)<", page.read_text("utf-8"))
    assert found, "the page names no count of requests"
    return int(found.group(1).replace(",", ""))


def test_a_burst_is_one_drawing_and_the_last_change_is_drawn_late(
    mock: MockServer, tmp_path: Path
) -> None:
    folder, page = tmp_path / "record", tmp_path / "live.html"
    lines = _recorded(mock.base_url, folder, [_body(n) for n in (1, 2, 3)])
    watcher = LiveAudit(page, page_every=3600)  # no timer fires by itself within the test
    (record,) = folder.glob("proxy-*.jsonl")
    watcher.started(record)
    for line in lines:
        assert watcher.exchange(line) == "lost 0"
    assert _page_requests(page) == 1  # the first was drawn at once, the next two wait
    timer = watcher._timer
    assert timer is not None
    timer.cancel()
    timer.function()  # what the timer does when its time comes
    assert _page_requests(page) == 3
    assert REFRESH in page.read_text(encoding="utf-8")


def test_the_end_draws_what_waited_and_stops_the_timer(mock: MockServer, tmp_path: Path) -> None:
    folder, page = tmp_path / "record", tmp_path / "live.html"
    lines = _recorded(mock.base_url, folder, [_body(n) for n in (1, 2)])
    watcher = LiveAudit(page, page_every=3600)
    (record,) = folder.glob("proxy-*.jsonl")
    watcher.started(record)
    for line in lines:
        watcher.exchange(line)
    timer = watcher._timer
    assert timer is not None
    watcher.ended(io.StringIO())
    assert watcher._timer is None and timer.finished.is_set()  # cancelled: it draws no more
    assert _page_requests(page) == 2
    assert REFRESH not in page.read_text(encoding="utf-8")


def test_a_page_that_cannot_be_written_is_said_and_the_view_goes_on(
    mock: MockServer, tmp_path: Path
) -> None:
    folder, page = tmp_path / "record", tmp_path / "live.html"
    page.mkdir()  # a folder where the page should be: no file can be written there
    lines = _recorded(mock.base_url, folder, [_body(1), _body(2)])
    watcher = LiveAudit(page, page_every=0)
    (record,) = folder.glob("proxy-*.jsonl")
    watcher.started(record)
    first, second = (watcher.exchange(line) for line in lines)
    assert first.startswith("lost 0; [the live page could not be written: ")
    assert str(page) in first
    assert second.startswith("lost 0; [the live page could not be written: ")
