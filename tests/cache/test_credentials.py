"""No credential a harness sends survives into anything the package returns; the caching
headers are kept."""

from __future__ import annotations

from typing import Any

import pytest

from ctxconf.cache import audit
from ctxconf.shapes import SHAPES, read_request

from .bodies import SECRET, block, chat, claude, gemini, responses, user

# Each credential header with a value of its own, each also copied into the body.
KEYS = {
    "Authorization": f"Bearer {SECRET}",
    "x-api-key": "sk-second-key-0000000000",
    "api-key": "azure-third-key-111111111",
    "x-goog-api-key": "AIzaFourthKey2222222222",
    "Cookie": "sid=COOKIEVALUE12345",
    "Proxy-Authorization": "Basic cHJveHk6c2VjcmV0MTIz",
}
HEADERS = [
    *KEYS.items(),
    ("anthropic-version", "2023-06-01"),
    ("anthropic-beta", "prompt-caching-2024-07-31,extended-cache-ttl-2025-04-11"),
    ("openai-beta", "responses=v1"),
    ("anthropic-beta", f"key-{SECRET}"),  # a caching header holding a key is dropped too
    ("user-agent", "harness/1.0"),
]
LEAKS = (
    SECRET,
    "sk-second-key-0000000000",
    "azure-third-key-111111111",
    "AIzaFourthKey2222222222",
    "COOKIEVALUE12345",
    "cHJveHk6c2VjcmV0MTIz",
)


def _bodies() -> dict[str, dict[str, Any]]:
    said = "my keys are " + ", ".join(LEAKS)
    return {
        "anthropic": claude([block(f"Use {SECRET} for the API.")], [user(said)]),
        "openai-chat": chat(f"Use {SECRET}.", [{"role": "user", "content": said}]),
        "openai-responses": responses(f"Use {SECRET}.", [{"role": "user", "content": said}]),
        "gemini": gemini(f"Use {SECRET}.", [{"role": "user", "parts": [{"text": said}]}]),
    }


@pytest.mark.parametrize("shape", list(_bodies()))
def test_no_credential_survives_in_a_request_its_figures_or_its_diagnosis(shape: str) -> None:
    body = _bodies()[shape]
    later = dict(body)
    requests = [read_request(shape, body, HEADERS, 0.0), read_request(shape, later, HEADERS, 1.0)]
    everything = [repr(requests)]
    for name in SHAPES[shape].providers:
        everything.append(repr(audit(name, requests)))
    for text in everything:
        for leak in LEAKS:
            assert leak not in text
    assert "[redacted]" in everything[0]  # the copy in the body was replaced, not kept


def test_only_the_caching_headers_are_kept() -> None:
    request = read_request("anthropic", claude([], [user("hi")]), HEADERS)
    assert request.headers == (
        ("anthropic-version", "2023-06-01"),
        ("anthropic-beta", "prompt-caching-2024-07-31,extended-cache-ttl-2025-04-11"),
        ("openai-beta", "responses=v1"),
    )


def test_headers_may_come_as_a_mapping() -> None:
    request = read_request(
        "openai-chat", chat("S", []), {"Authorization": f"Bearer {SECRET}", "OpenAI-Beta": "x"}
    )
    assert request.headers == (("openai-beta", "x"),)


def test_headers_read_once_are_enough() -> None:
    # Headers given as an iterator: their credentials are found and their caching ones kept.
    sent = iter([("Authorization", f"Bearer {SECRET}"), ("anthropic-beta", "b1")])
    request = read_request("anthropic", claude([], [user(f"key {SECRET}")]), sent)
    assert request.headers == (("anthropic-beta", "b1"),)
    assert SECRET not in repr(request)
