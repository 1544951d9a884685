"""Upstreams and clients that misbehave: each ends its own exchange with a record that says how,
and the proxy goes on serving the next request."""

from __future__ import annotations

import gzip
import hashlib
import http.client
import json
import socket
from pathlib import Path

import pytest

from ctxconf.proxy import ProxyThread
from tests.proxy import upstreams
from tests.proxy.helpers import WAIT, exchanges, lines, post, proxied, recorded, wait_for
from tests.proxy.upstreams import ANTHROPIC_EVENTS, FIRST_EVENT, GZIPPED_EVENTS, RawUpstream

BODY = json.dumps({"model": "claude-x", "messages": [{"role": "user", "content": "go"}]}).encode()
JSON = {"Content-Type": "application/json"}


def _still_serving(running: ProxyThread, up: RawUpstream) -> None:
    """A next request through the same proxy reaches the upstream (which may misbehave again:
    the connection is closed once it has)."""
    before = len(up.requests)
    host, port = running.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=WAIT) as client:
        head = f"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: {len(BODY)}\r\n\r\n"
        client.sendall(head.encode() + BODY)
        wait_for(lambda: len(up.requests) > before, "the next request forwarded")


def test_a_500_is_passed_on_as_it_came(tmp_path: Path) -> None:
    with RawUpstream(upstreams.answers_500) as up, proxied(up.url, tmp_path) as running:
        status, _, body = post(running.url, "/v1/messages", BODY, JSON)
        assert (status, json.loads(body)) == (500, {"error": {"message": "overloaded"}})
        _still_serving(running, up)
    first = exchanges(tmp_path)[0]
    assert (first["outcome"], first["response"]["status"]) == ("complete", 500)


def test_garbage_from_the_upstream_is_a_502_that_says_so(tmp_path: Path) -> None:
    with RawUpstream(upstreams.answers_garbage) as up, proxied(up.url, tmp_path) as running:
        status, _, body = post(running.url, "/v1/messages", BODY, JSON)
        assert status == 502
        assert "ctxconf proxy: the upstream" in json.loads(body)["error"]["message"]
        _still_serving(running, up)
    first = exchanges(tmp_path)[0]
    assert first["outcome"] == "upstream-error" and first["error"]


def test_an_unreachable_upstream_is_a_502(tmp_path: Path) -> None:
    with socket.socket() as taken:  # a port that nothing listens on while the test runs
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        with proxied(f"http://127.0.0.1:{port}", tmp_path) as running:
            status, _, _ = post(running.url, "/v1/messages", BODY, JSON)
    assert status == 502
    (line,) = exchanges(tmp_path)
    assert line["outcome"] == "upstream-error" and line["response"]["status"] == 502


def test_a_reset_mid_stream_is_cut_off_to_the_client_too(tmp_path: Path) -> None:
    with RawUpstream(upstreams.resets_mid_stream) as up, proxied(up.url, tmp_path) as running:
        connection = http.client.HTTPConnection(running.url.removeprefix("http://"), timeout=WAIT)
        try:
            connection.request("POST", "/v1/messages", body=BODY, headers=JSON)
            response = connection.getresponse()
            assert response.status == 200
            try:
                response.read()
            except http.client.IncompleteRead as cut:
                got = cut.partial
            else:
                raise AssertionError("a cut stream was ended as if it were whole")
        finally:
            connection.close()
        assert got == FIRST_EVENT
        _still_serving(running, up)
    first = exchanges(tmp_path)[0]
    assert first["outcome"] == "upstream-error"
    assert first["response"]["bytes_forwarded"] == len(FIRST_EVENT)
    assert first["usage"]["read"] == 100  # message_start had come


def test_a_slow_first_byte_is_waited_for(tmp_path: Path) -> None:
    with RawUpstream(upstreams.slow_first_byte) as up, proxied(up.url, tmp_path) as running:
        connection = http.client.HTTPConnection(running.url.removeprefix("http://"), timeout=WAIT)
        try:
            connection.request("POST", "/v1/messages", body=BODY, headers=JSON)
            wait_for(lambda: up.requests, "the request forwarded")
            up.gate.set()  # the upstream answers only now, however long that took
            response = connection.getresponse()
            assert response.read() == ANTHROPIC_EVENTS
        finally:
            connection.close()
    (line,) = exchanges(tmp_path)
    assert line["outcome"] == "complete"
    assert line["usage"] == {
        "input": 125,
        "read": 100,
        "written": 20,
        "output": 7,
        "provider": {
            "input_tokens": 5,
            "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 20,
            "output_tokens": 7,
        },
    }


def test_a_client_gone_mid_stream_closes_the_upstream_and_is_recorded(tmp_path: Path) -> None:
    with RawUpstream(upstreams.holds_mid_stream) as up, proxied(up.url, tmp_path) as running:
        host, port = running.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=WAIT) as client:
            head = f"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: {len(BODY)}\r\n\r\n"
            client.sendall(head.encode() + BODY)
            got = b""
            while b"message_start" not in got:
                got += client.recv(65536)
        # The harness is gone; the proxy closes the upstream rather than read on.
        wait_for(up.peer_closed.is_set, "the upstream's connection closed by the proxy")
        recorded(running, 1)
        _still_serving(running, up)
    first = exchanges(tmp_path)[0]
    assert first["outcome"] == "client-gone"
    assert first["usage"]["read"] == 100


def test_a_websocket_upgrade_is_refused_with_a_426_that_says_use_http(tmp_path: Path) -> None:
    with RawUpstream(upstreams.answers_500) as up, proxied(up.url, tmp_path) as running:
        connection = http.client.HTTPConnection(running.url.removeprefix("http://"), timeout=WAIT)
        try:
            connection.request(
                "GET",
                "/v1/responses",
                headers={
                    "Connection": "Upgrade",
                    "Upgrade": "websocket",
                    "Sec-WebSocket-Version": "13",
                    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                },
            )
            response = connection.getresponse()
            message = json.loads(response.read())["error"]["message"]
        finally:
            connection.close()
        assert response.status == 426
        assert "HTTP only, not WebSocket" in message and "over HTTP" in message
        assert up.requests == []  # never forwarded
        _still_serving(running, up)
    first = exchanges(tmp_path)[0]
    assert (first["outcome"], first["response"]["status"]) == ("refused", 426)


def test_a_body_over_the_limit_is_forwarded_whole_and_recorded_truncated(tmp_path: Path) -> None:
    big = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 5000}]})
    with (
        RawUpstream(upstreams.answers_500) as up,
        proxied(up.url, tmp_path, body_limit=1000) as running,
    ):
        post(running.url, "/v1/messages", big.encode(), JSON)
    assert up.requests[0].endswith(big.encode())
    (line,) = exchanges(tmp_path)
    request = line["request"]
    assert line["outcome"] == "truncated" and request["truncated"]
    assert request["body"] is None and "limit of 1,000 bytes" in request["body_error"]
    assert request["sha256_forwarded"] == hashlib.sha256(big.encode()).hexdigest()
    assert request["bytes_forwarded"] == len(big)


def test_the_bytes_go_as_they_came_and_compression_passes_raw(tmp_path: Path) -> None:
    # Spacing and key order a proxy that parses and writes JSON back would change.
    sent = gzip.compress(b'{ "z": 1,\n  "model":"m",  "messages" : [] }', mtime=0)
    headers = {**JSON, "Content-Encoding": "gzip", "X-Odd": "kept", "anthropic-beta": "b1"}
    with RawUpstream(upstreams.gzip_stream_in_pieces) as up, proxied(up.url, tmp_path) as running:
        status, answer_headers, answer = post(running.url, "/v1/messages?beta=true", sent, headers)
    assert status == 200 and answer_headers["Content-Encoding"] == "gzip"
    assert answer == GZIPPED_EVENTS  # not decoded on the way
    head, _, body = up.requests[0].partition(b"\r\n\r\n")
    assert body == sent
    assert head.startswith(b"POST /v1/messages?beta=true HTTP/1.1\r\n")
    for header in (b"X-Odd: kept", b"anthropic-beta: b1", b"Content-Encoding: gzip"):
        assert header in head
    (line,) = exchanges(tmp_path)
    assert line["request"]["body"] == {"z": 1, "model": "m", "messages": []}
    assert line["usage"]["read"] == 100 and line["usage"]["output"] == 7


def test_an_exchange_in_flight_when_the_proxy_stops_is_recorded_interrupted(
    tmp_path: Path,
) -> None:
    with RawUpstream(upstreams.holds_mid_stream) as up:
        with proxied(up.url, tmp_path) as running:
            host, port = running.url.removeprefix("http://").split(":")
            client = socket.create_connection((host, int(port)), timeout=WAIT)
            try:
                head = f"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: {len(BODY)}"
                client.sendall(head.encode() + b"\r\n\r\n" + BODY)
                got = b""
                while b"message_start" not in got:
                    got += client.recv(65536)
            except BaseException:
                client.close()
                raise
        client.close()  # only once the proxy has stopped
        wait_for(up.peer_closed.is_set, "the upstream's connection closed by the proxy")
    (line,) = exchanges(tmp_path)
    assert line["outcome"] == "interrupted" and line["usage"]["read"] == 100
    assert [row["kind"] for row in lines(tmp_path)][-1] == "end"


def test_a_line_that_cannot_be_made_is_still_a_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> dict[str, object]:
        raise KeyError("planted")

    monkeypatch.setattr("ctxconf.proxy.serve.line", broken)
    with RawUpstream(upstreams.answers_500) as up, proxied(up.url, tmp_path) as running:
        post(running.url, "/v1/messages", BODY, JSON)
    (line,) = exchanges(tmp_path)
    assert line["error"] == "its line could not be made: KeyError"
    assert line["response"]["status"] == 500
