"""The mock's cache: the provider a session is played under, its times, what the log keeps, and
a session played one request at a time answering as the whole session played at once."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from ctxconf.cache import simulate
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


def _bodies(shape: str) -> list[tuple[dict[str, Any], str]]:
    """Eight requests of one session in `shape` (and its path): a history that grows, a system
    prompt that changes once, and (Anthropic) thinking the provider drops by itself."""
    system = "You are careful. " * 800  # past every provider's minimum
    found = []
    history: list[dict[str, Any]] = []
    for n in range(8):
        said = system if n != 4 else "Today is 2026-12-06. " + system
        if shape == "gemini":
            history.append({"role": "user", "parts": [{"text": f"question {n}"}]})
            body = {"systemInstruction": {"parts": [{"text": said}]}, "contents": list(history)}
            found.append((body, "/v1beta/models/gemini-2.5-flash:generateContent"))
            history.append({"role": "model", "parts": [{"text": f"answer {n}"}]})
        elif shape == "anthropic":
            history.append({"role": "user", "content": [{"type": "text", "text": f"q {n}"}]})
            mark = {"type": "ephemeral"}
            body = {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": list(history),
                    "system": [{"type": "text", "text": said, "cache_control": mark}]}  # fmt: skip
            found.append((body, "/v1/messages"))
            thought = {"type": "thinking", "thinking": f"think {n}", "signature": "s"}
            answer = [thought, {"type": "text", "text": "a"}]
            history.append({"role": "assistant", "content": answer})
        else:
            history.append({"role": "user", "content": f"question {n}"})
            body = {"model": "gpt-5", "messages": [{"role": "system", "content": said}, *history]}
            found.append((body, "/v1/chat/completions"))
            history.append({"role": "assistant", "content": f"answer {n}"})
    return found


@pytest.mark.parametrize(
    ("shape", "provider"),
    [("anthropic", None), ("openai-chat", None), ("gemini", None), ("openai-chat", "llamacpp")],
)
def test_a_session_played_a_request_at_a_time_answers_as_the_whole_session_played_at_once(
    shape: str, provider: str | None
) -> None:
    # Seconds apart, and once past every lifetime but OpenAI's day: some entries expire.
    times = iter([0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 4000.0, 4010.0])
    cache = SessionCache(provider, clock=lambda: next(times))
    played = [cache.play(shape, body, {}, path) for body, path in _bodies(shape)]
    (name,) = {p.provider for p in played}
    kept = [p.request for p in played]
    assert [p.outcome for p in played] == [
        simulate(name, kept[: n + 1])[-1] for n in range(len(kept))
    ]
    reads = [p.outcome.figures.cache_read for p in played if p.outcome.figures]
    assert any(reads) and not all(reads)  # the session both read and missed
