"""The providers' own cache diagnostics as the mock gives them, read by the official clients:
Anthropic's `diagnostics` on the Message and on `message_start`, OpenAI Responses'
`prompt_cache_diagnostics` on the completed response; an id of another session, a malformed ask,
a pending comparison, beta mode, and an entry that expired."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxconf.cache import bundled_prices
from ctxconf.cache.provider_diagnostics import ANTHROPIC_BETA, DiagnosticsOptions
from ctxconf.probe import usage_figures
from ctxconf.probe.records import SessionRun
from ctxconf.probe.scenario import Step
from ctxconf.probe.server import MockServer, Script, read_log

openai = pytest.importorskip("openai", reason="the test extras install openai")
anthropic = pytest.importorskip("anthropic", reason="the test extras install anthropic")

STEPS = [Step("text", "Done.", None)]
MARK = {"type": "ephemeral"}
SYSTEM = [{"type": "text", "text": "You help. " * 600, "cache_control": MARK}]
GO = [{"role": "user", "content": [{"type": "text", "text": "go", "cache_control": MARK}]}]
SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}


class Clock:
    """The mock's clock, moved by the test: no wall-clock wait."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _mock(tmp_path: Path, name: str, **options: Any) -> MockServer:
    script = Script(STEPS, "/work", diagnostics=DiagnosticsOptions(**options))
    return MockServer(script, tmp_path / f"{name}.jsonl", clock=Clock())


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[MockServer]:
    with _mock(tmp_path, "log") as server:
        yield server


def _claude(mock: MockServer) -> Any:
    return anthropic.Anthropic(base_url=mock.base_url, api_key="k", max_retries=0)


def _ask(
    client: Any, previous: str | None = None, tool: str = "read", asked: bool = True, **extra: Any
) -> Any:
    """A Messages request, with `diagnostics` naming `previous` where it `asked`."""
    if asked:
        extra["diagnostics"] = {"previous_message_id": previous}
    tools = [{"name": tool, "input_schema": SCHEMA}]
    return client.messages.with_raw_response.create(
        model="claude-sonnet-4-5", max_tokens=100, system=SYSTEM, messages=GO, tools=tools, **extra
    )


def test_anthropic_names_the_change_against_the_previous_answer(mock: MockServer) -> None:
    with _claude(mock) as client:
        first = _ask(client, None)
        assert first.http_response.json()["diagnostics"] is None  # asked: null, not absent
        previous = first.parse().id
        again = _ask(client, previous).parse()
        renamed = _ask(client, again.id, tool="read_file").parse()
        with client.messages.stream(
            model="claude-sonnet-4-5",
            max_tokens=100,
            system=SYSTEM,
            messages=GO,
            tools=[{"name": "read", "input_schema": SCHEMA}],
            diagnostics={"previous_message_id": renamed.id},
        ) as stream:
            events = list(stream)
            streamed = stream.get_final_message()
        unasked = _ask(client, asked=False)
    assert again.diagnostics is None and again.usage.cache_read_input_tokens > 0
    reason = renamed.diagnostics.cache_miss_reason
    assert reason.type == "tools_changed" and reason.cache_missed_input_tokens > 0
    # Streamed, message_start carries the diagnostics whole.
    start = next(e for e in events if e.type == "message_start")
    assert start.message.diagnostics.cache_miss_reason.type == "tools_changed"
    assert streamed.diagnostics.cache_miss_reason.type == "tools_changed"
    assert "diagnostics" not in unasked.http_response.json()  # never asked: never sent
    logged = [e.get("diagnostics", "absent") for e in read_log(mock.model.log)]
    assert logged[:2] == [None, None]
    assert logged[2]["cache_miss_reason"]["type"] == "tools_changed"
    assert logged[-1] == "absent"


def test_an_id_of_another_session_is_not_found(mock: MockServer, tmp_path: Path) -> None:
    with _mock(tmp_path, "other") as other, _claude(other) as elsewhere:
        foreign = _ask(elsewhere, None).parse().id
    with _claude(mock) as client:
        answer = _ask(client, foreign).parse()
        unknown = _ask(client, "msg_01opencodeownid").parse()
    for found in (answer, unknown):
        assert found.diagnostics.cache_miss_reason.type == "previous_message_not_found"
        assert not hasattr(found.diagnostics.cache_miss_reason, "cache_missed_input_tokens")


@pytest.mark.parametrize(
    ("diagnostics", "message"),
    [
        ("msg_01x", "diagnostics: Input should be a valid dictionary or object"),
        ({"previous_message_id": 7}, "diagnostics.previous_message_id: Input should be a valid"),
        ({"previous_message": "msg_01x"}, "diagnostics.previous_message: Extra inputs are not"),
    ],
    ids=["not-an-object", "id-not-a-string", "unknown-field"],
)
def test_a_malformed_ask_is_the_apis_400_and_nothing_else_is_lost(
    mock: MockServer, diagnostics: Any, message: str
) -> None:
    with _claude(mock) as client:
        first = _ask(client, None).parse()
        with pytest.raises(anthropic.BadRequestError) as refused:
            _ask(client, asked=False, extra_body={"diagnostics": diagnostics})
        after = _ask(client, first.id).parse()
    assert refused.value.body["error"]["type"] == "invalid_request_error"
    assert refused.value.body["error"]["message"].startswith(message)
    # The refused request was never played: the next one reads the cache and compares as before.
    assert after.diagnostics is None and after.usage.cache_read_input_tokens > 0
    assert [e["kind"] for e in read_log(mock.model.log)] == ["answer", "api-error", "answer"]


def test_pending_is_an_empty_reason(tmp_path: Path) -> None:
    with _mock(tmp_path, "pending", pending=True) as mock, _claude(mock) as client:
        first = _ask(client, None).parse()
        later = _ask(client, first.id, tool="read_file").parse()
    assert first.diagnostics is None
    assert later.diagnostics is not None and later.diagnostics.cache_miss_reason is None


def test_beta_mode_keeps_on_the_header_and_answers_only_with_both(tmp_path: Path) -> None:
    beta = {"anthropic-beta": ANTHROPIC_BETA}
    with _mock(tmp_path, "beta", beta=True) as mock, _claude(mock) as client:
        kept = _ask(client, asked=False, extra_headers=beta)  # the header alone: kept, nothing said
        compared = _ask(client, kept.parse().id, tool="read_file", extra_headers=beta).parse()
        unheaded = _ask(client, compared.id)
    assert "diagnostics" not in kept.http_response.json()
    assert compared.diagnostics.cache_miss_reason.type == "tools_changed"
    assert "diagnostics" not in unheaded.http_response.json()


def test_an_expired_entry_is_null_beside_a_read_of_zero(tmp_path: Path) -> None:
    """Ten minutes on, the five-minute entry is gone but the fingerprint is not: the provider
    says nothing changed, and the usage says nothing was read."""
    with _mock(tmp_path, "expired") as mock, _claude(mock) as client:
        first = _ask(client, None).parse()
        clock = mock.model.cache.clock
        assert isinstance(clock, Clock)
        clock.now += 600
        later = _ask(client, first.id).parse()
        clock.now += 7200  # past the fingerprint's hour too
        forgotten = _ask(client, later.id).parse()
    assert first.usage.cache_creation_input_tokens > 0
    assert later.diagnostics is None and later.usage.cache_read_input_tokens == 0
    assert forgotten.diagnostics.cache_miss_reason.type == "previous_message_not_found"


# --- OpenAI Responses -------------------------------------------------------------------------

INSTRUCTIONS = "You are Codex. " * 600


def _respond(client: Any, against: str | None = None, **extra: Any) -> Any:
    if against is not None:
        extra["prompt_cache_options"] = {"comparison_response_id": against}
    return client.responses.create(
        model=extra.pop("model", "gpt-5.6"), instructions=INSTRUCTIONS, input="go", **extra
    )


def _openai(mock: MockServer) -> Any:
    return openai.OpenAI(base_url=mock.base_url + "/v1", api_key="k", max_retries=0)


def test_responses_diagnose_against_the_comparison_response(mock: MockServer) -> None:
    with _openai(mock) as client:
        first = _respond(client)
        hit = _respond(client, first.id)
        effort = _respond(client, hit.id, reasoning={"effort": "high"})
        events = list(_respond(client, first.id, stream=True))
        missing = _respond(client, "resp_0123")
        older = _respond(client, first.id, model="gpt-5.4")
        with pytest.raises(openai.BadRequestError) as refused:
            _respond(client, extra_body={"prompt_cache_options": {"comparison_response_id": 5}})
    assert first.prompt_cache_diagnostics is None
    assert hit.prompt_cache_diagnostics is not None
    assert hit.prompt_cache_diagnostics.type == "cache_hit"
    miss = effort.prompt_cache_diagnostics
    assert miss is not None and miss.type == "cache_miss"
    assert miss.reason == "reasoning_effort_changed" and miss.cache_missed_tokens > 0
    done = events[-1]
    assert done.type == "response.completed"
    assert done.response.prompt_cache_diagnostics.type == "cache_hit"
    assert all(
        e.response.prompt_cache_diagnostics is None for e in events if e.type == "response.created"
    )
    assert missing.prompt_cache_diagnostics.type == "comparison_response_not_found"
    assert older.prompt_cache_diagnostics.type == "unavailable"
    assert refused.value.body["code"] == "invalid_type"
    assert refused.value.body["param"] == "prompt_cache_options.comparison_response_id"


# --- the provider's verdict in the results ----------------------------------------------------


def test_the_results_hold_the_providers_verdict_beside_ctxconfs_cause(mock: MockServer) -> None:
    with _claude(mock) as client:
        first = _ask(client, None).parse()
        renamed = _ask(client, first.id, tool="read_file").parse()
        _ask(client, renamed.id, tool="read_file")
    session = SessionRun(0, None, read_log(mock.model.log), [])
    rows = usage_figures.to_data(usage_figures.session_figures(session, bundled_prices()))
    shown = [r["provider_verdict"] for r in rows["sessions"][0]["requests"]]
    assert shown[0] is None  # the first turn compares nothing: its null says nothing
    missed = renamed.diagnostics.cache_miss_reason.cache_missed_input_tokens
    assert shown[1] == {
        "reason": "tools_changed",
        "missed": missed,
        "agrees": True,
        "words": f"the provider says tools_changed ({missed:,} tokens by its estimate) — agrees",
    }
    assert rows["sessions"][0]["requests"][1]["diagnosis"]["causes"][0]["kind"] == "tools-added"
    assert shown[2] is not None and shown[2]["reason"] == "no-change" and shown[2]["agrees"]
