"""The proxy's record as a source: records written by the real proxy in front of the probe's
mock, read back request for request with the provider's figures (each shape's own meaning of
"input"), the bodies as forwarded, the sessions by key, account and run; a --hash-only record
without bodies; an exchange the upstream broke is one problem; a count is no request."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxconf.audit.readers.proxy_record import READER
from ctxconf.audit.readers.registry import READERS
from ctxconf.audit.scan import find_files
from ctxconf.probe.scenario import Step
from ctxconf.probe.server import MockServer, Script
from tests.audit.helpers import head, read_all
from tests.proxy.helpers import exchanges, post, proxied, recorded
from tests.proxy.upstreams import RawUpstream, resets_mid_stream

STEPS = [Step("read", "A.txt", "read"), Step("text", "Done.", None)]
JSON = {"Content-Type": "application/json"}
LONG = "You are a careful helper. " * 400  # past every provider's minimum for a cache


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[MockServer]:
    with MockServer(Script(STEPS, "/work"), tmp_path / "log.jsonl") as server:
        yield server


def _anthropic(turns: int) -> bytes:
    messages: list[dict[str, object]] = []
    for n in range(turns):
        messages.append({"role": "user", "content": f"turn {n}"})
        if n < turns - 1:
            messages.append({"role": "assistant", "content": f"answer {n}"})
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 50,
        "system": [{"type": "text", "text": LONG, "cache_control": {"type": "ephemeral"}}],
        "messages": messages,
    }
    return json.dumps(body).encode()


def _record(folder: Path) -> Path:
    (path,) = sorted(folder.glob("proxy-*.jsonl"))
    return path


def test_each_exchange_with_a_usage_is_a_request_with_the_provider_s_figures(
    mock: MockServer, tmp_path: Path
) -> None:
    folder = tmp_path / "record"
    key = {"x-api-key": "sk-ant-reader-secret", **JSON}
    with proxied(mock.base_url, folder) as running:
        for turns in (1, 2):
            assert post(running.url, "/v1/messages", _anthropic(turns), key)[0] == 200
        assert post(running.url, "/v1/messages/count_tokens", _anthropic(1), key)[0] == 200
        recorded(running, 3)
    path = _record(folder)
    assert READER.claims(path, head(path))
    assert [f.reader.name for f in find_files([folder], print, READERS)] == ["proxy-record"]
    requests, problems = read_all(READER, path)
    assert problems == []
    lines = exchanges(folder)
    assert len(requests) == 2  # the count is no request
    for request, line in zip(requests, lines, strict=False):
        usage = line["usage"]["provider"]
        tokens = request.tokens
        assert (tokens.uncached, tokens.read, tokens.written, tokens.output) == (
            usage["input_tokens"],
            usage["cache_read_input_tokens"],
            usage["cache_creation_input_tokens"],
            usage["output_tokens"],
        )
        assert request.body == line["request"]["body"] and request.body_complete
        assert (request.shape, request.provider, request.model, request.status) == (
            "anthropic",
            "anthropic",
            "claude-sonnet-4-5",
            200,
        )
        assert request.place.line is not None and request.time is not None
        assert dict(request.headers)["x-api-key"] == "[redacted]"
    first, second = requests
    assert first.tokens.read == 0 and second.tokens.read == first.tokens.written
    # One account within one run: one session, named by the run and the account's hash.
    assert first.session == second.session == f"{path.stem} account {lines[0]['account']['hash']}"


def test_a_prompt_cache_key_is_the_session_and_a_hash_only_record_keeps_no_body(
    mock: MockServer, tmp_path: Path
) -> None:
    folder = tmp_path / "record"
    body = {"model": "gpt-5", "prompt_cache_key": "conv-1", "messages": [{"role": "user",
            "content": LONG}]}  # fmt: skip
    with proxied(mock.base_url, folder, hash_only=True) as running:
        status, _, _ = post(running.url, "/v1/chat/completions", json.dumps(body).encode(), JSON)
        assert status == 200
        recorded(running, 1)
    (request,), problems = read_all(READER, _record(folder))
    (line,) = exchanges(folder)
    assert problems == []
    assert request.session == f"prompt_cache_key:{line['prompt_cache_key']}"
    assert request.body is None and request.shape == "openai-chat"
    usage = line["usage"]["provider"]
    read = usage["prompt_tokens_details"]["cached_tokens"]
    assert request.tokens.uncached == usage["prompt_tokens"] - read


def test_an_exchange_the_upstream_broke_is_one_problem_not_a_request(tmp_path: Path) -> None:
    folder = tmp_path / "record"
    with RawUpstream(resets_mid_stream) as upstream, proxied(upstream.url, folder) as running:
        post_broken(running.url)
        recorded(running, 1)
    requests, problems = read_all(READER, _record(folder))
    assert requests == []
    (problem,) = problems
    assert problem.place.line == 2
    assert "exchange #1 ended upstream-error" in problem.message


def post_broken(url: str) -> None:
    try:
        post(url, "/v1/messages", _anthropic(1), JSON)
    except (http.client.HTTPException, OSError):
        pass  # the answer was cut: what the record says of it is the test


def test_a_file_whose_first_line_is_another_s_is_not_claimed(tmp_path: Path) -> None:
    other = tmp_path / "other.jsonl"
    other.write_text('{"kind":"run","format":"something-else"}\n', encoding="utf-8")
    assert not READER.claims(other, head(other))
