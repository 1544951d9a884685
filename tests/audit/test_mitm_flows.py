"""mitmproxy flow files: the flows below, encoded as `mitmdump -w` does, are read like a HAR
(a gzip-encoded Responses stream, an Anthropic JSON answer, a TCP flow passed over); a flow
whose content is not a tnetstring is one problem and the next is read; a file torn inside a
flow is one problem after the flows before it."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from ctxconf.audit.readers.mitm_flows import MAX_DEPTH, READER, TnetError, parse
from ctxconf.audit.record import TokenClasses
from tests.audit.helpers import FIXTURES, head, read_all

FLOWS = FIXTURES / "mitm_flows" / "flows.mitm"

_RESPONSES_STREAM = (
    'event: response.created\ndata: {"type":"response.created","response":{"id":"resp_1"}}\n\n'
    "event: response.completed\ndata: "
    + json.dumps(
        {
            "type": "response.completed",
            "response": {
                "id": "resp_1",
                "model": "gpt-5.6",
                "usage": {
                    "input_tokens": 12033,
                    "input_tokens_details": {"cached_tokens": 11904},
                    "output_tokens": 44,
                },
                "prompt_cache_diagnostics": {"type": "cache_hit"},
            },
        }
    )
    + "\n\n"
)


def _http(
    host: str, path: str, headers: list[list[bytes]], body: dict[str, Any], answer: dict[str, Any]
) -> dict[str, Any]:
    return {
        "version": 21,
        "type": "http",
        "id": f"flow-{path}",
        "request": {
            "host": host,
            "port": 443,
            "method": b"POST",
            "scheme": b"https",
            "authority": b"",
            "path": path.encode(),
            "http_version": b"HTTP/1.1",
            "headers": headers,
            "content": json.dumps(body).encode(),
            "trailers": None,
            "timestamp_start": 1773568800.25,
            "timestamp_end": 1773568800.5,
        },
        "response": answer,
    }


STATES: list[dict[str, Any]] = [
    _http(
        "api.openai.com",
        "/v1/responses",
        [[b"Authorization", b"Bearer sk-FIXTURE-SECRET-6"], [b"content-type", b"application/json"]],
        {"model": "gpt-5.6", "input": "hi", "stream": True, "prompt_cache_key": "k-1"},
        {
            "status_code": 200,
            "reason": b"OK",
            "http_version": b"HTTP/1.1",
            "headers": [[b"content-encoding", b"gzip"], [b"x-request-id", b"req_r1"]],
            "content": gzip.compress(_RESPONSES_STREAM.encode(), mtime=0),
            "trailers": None,
        },
    ),
    {"version": 21, "type": "tcp", "id": "tcp-1", "messages": [[True, b"\x00\x01", 1.0]]},
    _http(
        "api.anthropic.com",
        "/v1/messages",
        [[b"x-api-key", b"sk-ant-FIXTURE-SECRET-7"]],
        {"model": "claude-haiku-4-5", "max_tokens": 10, "messages": []},
        {
            "status_code": 200,
            "reason": b"OK",
            "http_version": b"HTTP/1.1",
            "headers": [[b"request-id", b"req_a1"]],
            "content": json.dumps(
                {"id": "msg_9", "type": "message", "usage": {"input_tokens": 3, "output_tokens": 2}}
            ).encode(),
            "trailers": None,
        },
    ),
]


def dumps(value: Any) -> bytes:
    """A tnetstring, as mitmproxy's writer makes one (text as `;`, bytes as `,`)."""
    if value is None:
        return b"0:~"
    if isinstance(value, bool):
        data, tag = (b"true" if value else b"false"), b"!"
    elif isinstance(value, int):
        data, tag = str(value).encode(), b"#"
    elif isinstance(value, float):
        data, tag = repr(value).encode(), b"^"
    elif isinstance(value, bytes):
        data, tag = value, b","
    elif isinstance(value, str):
        data, tag = value.encode(), b";"
    elif isinstance(value, list):
        data, tag = b"".join(dumps(item) for item in value), b"]"
    else:
        data, tag = b"".join(dumps(k) + dumps(v) for k, v in value.items()), b"}"
    return str(len(data)).encode() + b":" + data + tag


def test_the_fixture_is_the_encoding_of_the_flows_above() -> None:
    assert FLOWS.read_bytes() == b"".join(dumps(state) for state in STATES)
    assert READER.claims(FLOWS, head(FLOWS))


def test_http_flows_to_an_api_are_requests() -> None:
    requests, problems = read_all(READER, FLOWS)
    assert problems == []
    responses, messages = requests
    assert responses.tokens == TokenClasses(12033 - 11904, 11904, None, None, 44)
    assert responses.diagnostics == {"type": "cache_hit"}
    assert (responses.shape, responses.session, responses.request_id) == (
        "openai-responses",
        "prompt_cache_key:k-1",
        "req_r1",
    )
    assert responses.place.pointer == "flow 1 (byte 0)"
    # an answer without cache fields: N/A, not 0
    assert messages.tokens == TokenClasses(3, None, None, None, 2)
    assert (messages.session, messages.place.pointer.split(" (")[0]) == ("flows.mitm", "flow 3")
    kept = repr(requests)
    assert "FIXTURE-SECRET" not in kept


def test_a_bad_flow_is_one_problem_and_the_next_is_read(tmp_path: Path) -> None:
    path = tmp_path / "flows"
    path.write_bytes(b"6:3:abc?}" + dumps(STATES[2]))
    requests, problems = read_all(READER, path)
    assert [r.request_id for r in requests] == ["req_a1"]
    assert [(p.place.pointer, "unknown type tag" in p.message) for p in problems] == [
        ("flow 1 (byte 0)", True)
    ]


def test_a_torn_file_keeps_the_flows_before_the_tear(tmp_path: Path) -> None:
    path = tmp_path / "flows"
    path.write_bytes(dumps(STATES[2]) + dumps(STATES[0])[:200])
    requests, problems = read_all(READER, path)
    assert [r.request_id for r in requests] == ["req_a1"]
    assert [(p.place.file, "torn" in p.message) for p in problems] == [(path, True)]


def test_the_parser_refuses_what_is_too_deep() -> None:
    deep = b"0:]"
    for _ in range(MAX_DEPTH + 2):
        deep = str(len(deep)).encode() + b":" + deep + b"]"
    with pytest.raises(TnetError, match="nested deeper"):
        parse(deep[deep.index(b":") + 1 : -1], ord("]"))
