"""The mock's cache: the provider a session is played under, its times, and what the log keeps."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from ctxconf.probe.cache_session import SessionCache, model_in_path
from ctxconf.probe.scenario import Step
from ctxconf.probe.server import MockServer, Script, read_log

TOOLS = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]


def test_a_gemini_path_names_its_model() -> None:
    path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert model_in_path(path) == "gemini-2.5-flash"
    assert model_in_path("/v1/chat/completions") is None


def test_each_request_is_given_a_time_strictly_after_the_last() -> None:
    cache = SessionCache(clock=lambda: 100.0)
    body = {"model": "m", "messages": [{"role": "user", "content": "go"}]}
    first = cache.play("openai-chat", body, {}, "/v1/chat/completions")
    second = cache.play("openai-chat", body, {}, "/v1/chat/completions")
    assert first.at == 100.0 and second.at > first.at
    assert (first.index, second.index) == (0, 1)


def _post(url: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json", **headers}
    )
    with urllib.request.urlopen(request) as response:
        data: dict[str, Any] = json.load(response)
        return data


def test_llamacpp_asked_for_reads_the_whole_repeated_prompt_less_one(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    script = Script([Step("text", "Done.", None)], "/work", provider="llamacpp")
    body = {"model": "m", "messages": [{"role": "user", "content": "go"}], "tools": TOOLS}
    with MockServer(script, log) as mock:
        url = mock.base_url + "/v1/chat/completions"
        first, again = (_post(url, body, {})["usage"] for _ in range(2))
    assert first["prompt_tokens_details"]["cached_tokens"] == 0
    assert again["prompt_tokens_details"]["cached_tokens"] == again["prompt_tokens"] - 1
    assert [e["cache"]["provider"] for e in read_log(log)] == ["llamacpp", "llamacpp"]


def test_the_log_keeps_the_caching_headers_and_no_credential(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    secret = "sk-ant-very-secret-key"
    headers = {
        "x-api-key": secret,
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "prompt-caching-2024-07-31",
    }
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 10,
        "system": f"You help. Your key is {secret}.",
        "messages": [{"role": "user", "content": "go"}],
        "tools": [{"name": "Read", "input_schema": {"type": "object"}}],
    }
    with MockServer(Script([Step("text", "Done.", None)], "/work"), log) as mock:
        _post(mock.base_url + "/v1/messages", body, headers)
    assert secret not in log.read_text()
    entry = read_log(log)[0]
    assert entry["cache"]["headers"] == {
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "prompt-caching-2024-07-31",
    }
    assert entry["body"]["system"] == "You help. Your key is [redacted]."
