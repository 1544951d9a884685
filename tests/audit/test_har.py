"""HAR captures: an Anthropic answer streamed as SSE, an OpenAI chat answer in base64 JSON, a
Gemini answer, and a request to no API that is passed over; no credential of the fixture's
headers or URLs reaches a request; a HAR that is not JSON is one problem."""

from __future__ import annotations

from datetime import datetime, timezone

from ctxconf.audit.readers.har import READER
from ctxconf.audit.record import TokenClasses
from tests.audit.helpers import FIXTURES, head, read_all

HAR = FIXTURES / "har" / "session.har"
SECRETS = ("FIXTURE-SECRET", "FIXTURE-COOKIE", "FIXTURE-SETCOOKIE")


def test_only_api_exchanges_are_requests() -> None:
    assert READER.claims(HAR, head(HAR))
    requests, problems = read_all(READER, HAR)
    assert problems == []
    assert [(r.shape, r.place.pointer) for r in requests] == [
        ("anthropic", "/log/entries/0"),
        ("openai-chat", "/log/entries/2"),
        ("gemini", "/log/entries/3"),
    ]


def test_an_anthropic_stream_gives_message_start_s_input_and_the_delta_s_output() -> None:
    streamed = read_all(READER, HAR)[0][0]
    # the delta's null cache read does not replace message_start's 17102
    assert streamed.tokens == TokenClasses(9, 17102, 0, 300, 8)
    assert streamed.diagnostics == {"cache_miss_reason": None}
    assert (streamed.session, streamed.request_id, streamed.model, streamed.status) == (
        "cc-session-1",
        "req_01",
        "claude-sonnet-4-5",
        200,
    )
    assert streamed.body is not None and streamed.body["system"][0]["text"] == "You are a helper."
    assert streamed.time == datetime(2026, 3, 15, 10, 0, tzinfo=timezone.utc)
    assert dict(streamed.headers)["anthropic-beta"] == "prompt-caching-2024-07-31"


def test_a_base64_chat_answer_counts_its_cached_tokens_inside_prompt_tokens() -> None:
    chat = read_all(READER, HAR)[0][1]
    assert chat.tokens == TokenClasses(2006 - 1920, 1920, None, None, 300)
    assert (chat.session, chat.request_id, chat.provider) == (
        "prompt_cache_key:pck-7",
        "req_02",
        "openai",
    )


def test_gemini_names_its_model_in_the_path_and_reports_no_writes() -> None:
    gemini = read_all(READER, HAR)[0][2]
    assert gemini.tokens == TokenClasses(18625 - 18010, 18010, None, None, 188)
    assert (gemini.model, gemini.session) == ("gemini-2.5-pro", "session.har")
    assert gemini.extra["url"] == (
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent"
        "?alt=json"
    )


def test_no_credential_reaches_a_request() -> None:
    requests, _ = read_all(READER, HAR)
    kept = repr(requests)
    assert [secret for secret in SECRETS if secret in kept] == []
    names = {name.lower() for r in requests for name, _ in r.headers}
    assert (
        names & {"x-api-key", "authorization", "cookie", "x-goog-api-key", "x-stainless-token"}
        == set()
    )


def test_a_har_that_is_not_json_is_one_problem() -> None:
    path = FIXTURES / "har" / "not-json.har"
    assert READER.claims(path, head(path))
    requests, problems = read_all(READER, path)
    assert requests == []
    assert [(p.place.file, p.message.startswith("not JSON")) for p in problems] == [(path, True)]
