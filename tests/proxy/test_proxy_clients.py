"""The official clients of the four API shapes, through the proxy to the probe's mock: each is
answered as without it, the mock receives the very bytes each sent, and the record holds each
exchange (its shape, model, usage, hashes), valid by its schema, with no key in any file."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxconf.probe.scenario import Step
from ctxconf.probe.server import MockServer, Script, read_log
from ctxconf.proxy import ProxyThread
from tests.proxy.helpers import exchanges, lines, post, proxied, recorded, secrets_absent

openai = pytest.importorskip("openai", reason="the test extras install openai")
anthropic = pytest.importorskip("anthropic", reason="the test extras install anthropic")
genai = pytest.importorskip("google.genai", reason="the test extras install google-genai")

STEPS = [Step("read", "A.txt", "read"), Step("text", "All read, and long enough.", None)]
KEYS = ("sk-ant-proxy-secret", "sk-openai-proxy-secret", "AIza-proxy-secret")
READ = {"type": "object", "properties": {"path": {"type": "string"}}}


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[MockServer]:
    with MockServer(Script(STEPS, "/work"), tmp_path / "log.jsonl") as server:
        yield server


@pytest.fixture
def proxy(mock: MockServer, tmp_path: Path) -> Iterator[ProxyThread]:
    with proxied(mock.base_url, tmp_path / "record") as running:
        yield running


def _last(proxy: ProxyThread, tmp_path: Path, count: int) -> list[dict[str, Any]]:
    """The last `count` exchanges, once all so far are written."""
    recorded(proxy, proxy.proxy.forwarded)
    return exchanges(tmp_path / "record")[-count:]


def _sent_bodies(mock: MockServer) -> list[bytes]:
    """What the mock read of each request, as the bytes of its JSON (the mock logs parsed)."""
    return [json.dumps(e["body"], sort_keys=True).encode() for e in read_log(mock.model.log)]


def test_anthropic_streamed_and_whole(proxy: ProxyThread, tmp_path: Path) -> None:
    tools = [{"name": "Read", "input_schema": READ}]
    messages = [{"role": "user", "content": "go"}]
    with anthropic.Anthropic(base_url=proxy.url, api_key=KEYS[0], max_retries=0) as client:
        with client.messages.stream(
            model="claude-sonnet-4-5", max_tokens=100, messages=messages, tools=tools
        ) as stream:
            final = stream.get_final_message()
        whole = client.messages.create(
            model="claude-sonnet-4-5", max_tokens=100, messages=messages, tools=tools
        )
    assert final.content[0].type == "tool_use" and whole.content[0].type == "tool_use"
    streamed, answered = _last(proxy, tmp_path, 2)
    assert (streamed["shape"], streamed["model"], streamed["outcome"]) == (
        "anthropic",
        "claude-sonnet-4-5",
        "complete",
    )
    assert streamed["response"]["stream"] and not answered["response"]["stream"]
    for line, usage in ((streamed, final.usage), (answered, whole.usage)):
        assert line["usage"]["input"] == usage.input_tokens
        assert line["usage"]["read"] == usage.cache_read_input_tokens
        assert line["usage"]["output"] == usage.output_tokens
        assert line["account"]["from"] in ("x-api-key", "authorization")
        assert line["request"]["body"]["messages"] == messages


def test_chat_streamed_and_whole_with_a_prompt_cache_key(
    proxy: ProxyThread, mock: MockServer, tmp_path: Path
) -> None:
    messages = [{"role": "user", "content": "go"}]
    with openai.OpenAI(base_url=proxy.url + "/v1", api_key=KEYS[1], max_retries=0) as client:
        chunks = list(
            client.chat.completions.create(
                model="gpt-5",
                messages=messages,
                stream=True,
                stream_options={"include_usage": True},
                prompt_cache_key="session-1",
            )
        )
        whole = client.chat.completions.create(
            model="gpt-5", messages=messages, prompt_cache_key="session-1"
        )
    assert chunks[-1].usage is not None and whole.usage is not None
    streamed, answered = _last(proxy, tmp_path, 2)
    assert streamed["usage"]["input"] == chunks[-1].usage.prompt_tokens
    assert answered["usage"]["input"] == whole.usage.prompt_tokens
    assert streamed["prompt_cache_key"] == answered["prompt_cache_key"]
    assert streamed["prompt_cache_key"].startswith("hmac-sha256:")
    assert streamed["request"]["body"]["prompt_cache_key"] == streamed["prompt_cache_key"]
    assert "session-1" not in streamed["prompt_cache_key"]
    assert streamed["account"] == answered["account"]
    assert streamed["account"]["from"] == "authorization"


def test_responses_streamed_and_whole(proxy: ProxyThread, tmp_path: Path) -> None:
    tools = [{"type": "function", "name": "read", "strict": False, "parameters": READ}]
    with openai.OpenAI(base_url=proxy.url + "/v1", api_key=KEYS[1], max_retries=0) as client:
        events = list(client.responses.create(model="m", input="go", tools=tools, stream=True))
        whole = client.responses.create(model="m", input="go", tools=tools)
    assert events[-1].type == "response.completed" and whole.usage is not None
    streamed, answered = _last(proxy, tmp_path, 2)
    assert streamed["shape"] == answered["shape"] == "openai-responses"
    assert streamed["usage"]["input"] == events[-1].response.usage.input_tokens
    assert answered["usage"]["read"] == whole.usage.input_tokens_details.cached_tokens


def test_gemini_streamed_and_whole_with_the_key_in_a_header(
    proxy: ProxyThread, tmp_path: Path
) -> None:
    with genai.Client(api_key=KEYS[2], http_options={"base_url": proxy.url}) as client:
        whole = client.models.generate_content(model="gemini-2.5-flash", contents="go")
        chunks = list(
            client.models.generate_content_stream(model="gemini-2.5-flash", contents="go")
        )
    assert whole.usage_metadata is not None and chunks[-1].usage_metadata is not None
    answered, streamed = _last(proxy, tmp_path, 2)
    assert answered["shape"] == streamed["shape"] == "gemini"
    assert (answered["asked"], streamed["asked"]) == ("answer", "stream")
    assert answered["model"] == "gemini-2.5-flash"
    assert answered["usage"]["input"] == whole.usage_metadata.prompt_token_count
    assert streamed["usage"]["input"] == chunks[-1].usage_metadata.prompt_token_count
    assert streamed["account"]["from"] == "x-goog-api-key"
    assert "alt=sse" in streamed["path"]


def test_the_mock_receives_the_bytes_each_client_sent(
    proxy: ProxyThread, mock: MockServer, tmp_path: Path
) -> None:
    sent: list[bytes] = []

    def keep(request: Any) -> None:  # the clients' own HTTP library's request, about to go
        sent.append(request.read())

    hooks = {"request": [keep]}
    tools = [{"type": "function", "name": "read", "strict": False, "parameters": READ}]
    with anthropic.Anthropic(
        base_url=proxy.url,
        api_key=KEYS[0],
        max_retries=0,
        http_client=anthropic.DefaultHttpxClient(event_hooks=hooks),
    ) as claude:
        with claude.messages.stream(
            model="m", max_tokens=9, messages=[{"role": "user", "content": "go"}]
        ) as stream:
            stream.get_final_message()
    with openai.OpenAI(
        base_url=proxy.url + "/v1",
        api_key=KEYS[1],
        max_retries=0,
        http_client=openai.DefaultHttpxClient(event_hooks=hooks),
    ) as client:
        list(client.responses.create(model="m", input="go", tools=tools, stream=True))
        client.responses.create(model="m", input="go", tools=tools)
    recorded_lines = _last(proxy, tmp_path, 3)
    assert len(sent) == 3
    for line, body in zip(recorded_lines, sent, strict=True):
        request = line["request"]
        digest = hashlib.sha256(body).hexdigest()
        assert request["sha256_received"] == request["sha256_forwarded"] == digest
        assert request["bytes_received"] == request["bytes_forwarded"] == len(body)
        response = line["response"]
        assert response["sha256_received"] == response["sha256_forwarded"]
    # What the mock read is what each client sent.
    assert _sent_bodies(mock) == [
        json.dumps(json.loads(body), sort_keys=True).encode() for body in sent
    ]


def test_a_key_in_the_query_is_redacted_and_hashed(proxy: ProxyThread, tmp_path: Path) -> None:
    body = json.dumps({"contents": [{"role": "user", "parts": [{"text": "go"}]}]}).encode()
    path = f"/v1beta/models/gemini-2.5-flash:generateContent?key={KEYS[2]}"
    status, _, _ = post(proxy.url, path, body, {"Content-Type": "application/json"})
    assert status == 200
    (line,) = _last(proxy, tmp_path, 1)
    assert line["path"] == "/v1beta/models/gemini-2.5-flash:generateContent?key=[redacted]"
    assert line["account"]["from"] == "key="
    assert line["request"]["sha256_received"] == hashlib.sha256(body).hexdigest()


def test_no_key_is_in_any_file_of_the_record(
    mock: MockServer, proxy: ProxyThread, tmp_path: Path
) -> None:
    test_anthropic_streamed_and_whole(proxy, tmp_path)
    test_chat_streamed_and_whole_with_a_prompt_cache_key(proxy, mock, tmp_path)
    test_a_key_in_the_query_is_redacted_and_hashed(proxy, tmp_path)
    assert secrets_absent(tmp_path / "record", *KEYS, "session-1") == []
    assert lines(tmp_path / "record")[0]["kind"] == "run"


def test_hash_only_keeps_the_units_hashes_and_no_text(mock: MockServer, tmp_path: Path) -> None:
    system = "You are a careful helper with a secret plan."
    with proxied(mock.base_url, tmp_path / "record", hash_only=True) as running:
        with anthropic.Anthropic(base_url=running.url, api_key=KEYS[0], max_retries=0) as client:
            client.messages.create(
                model="m",
                max_tokens=10,
                system=system,
                messages=[{"role": "user", "content": "go"}],
                tools=[{"name": "Read", "input_schema": READ}],
            )
    (line,) = exchanges(tmp_path / "record")
    assert "body" not in line["request"]
    units = line["request"]["units"]
    assert [u["section"] for u in units] == ["tools", "system", "messages"]
    assert all(len(u["sha256"]) == 64 for u in units)
    assert secrets_absent(tmp_path / "record", system, "careful helper") == []
