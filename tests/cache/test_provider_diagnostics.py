"""The providers' own cache diagnostics as the simulator's requests give them, against the
examples their documents give: a tool renamed, a timestamp in the system prompt, an earlier
message edited, the effort changed, the same request again, an unknown id, an entry that
expired (diagnostics `null` beside a read of 0: the provider's lifetime, never the harness's)."""

from __future__ import annotations

from typing import Any

import pytest

from ctxconf.cache import CacheRequest, audit, simulate
from ctxconf.cache.provider_diagnostics import (
    ANTHROPIC_BETA,
    DiagnosticsAsk,
    DiagnosticsOptions,
    Fingerprints,
    anthropic_diagnostics,
    anthropic_reason,
    carries,
    keeps,
    openai_diagnostics,
)
from ctxconf.cache.provider_verdict import agreement, no_change
from ctxconf.shapes import read_request

from .bodies import (
    anthropic_tool,
    assistant,
    block,
    claude,
    responses,
    text,
    tool_result,
    tool_use,
    user,
)

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}
SYSTEM = "You help. " + text(6000)
ASKED = DiagnosticsAsk("anthropic", True, "msg_01earlier")


def _claude(
    system: str = SYSTEM,
    tool: str = "read",
    messages: list[dict[str, Any]] | None = None,
    headers: list[tuple[str, str]] | None = None,
    at: float = 0.0,
    **extra: Any,
) -> CacheRequest:
    tools = [anthropic_tool(tool, "Reads a file.", SCHEMA)]
    body = claude([block(system, marked=True)], messages or [user("go")], tools, **extra)
    return read_request("anthropic", body, headers or [], at)


def _turn_two(first: str = "go") -> list[dict[str, Any]]:
    call = tool_use("c1", "read", {"path": "A.txt"})
    return [user(first), assistant(call), user(tool_result("c1", "text"))]


def _type(reason: dict[str, Any] | None) -> str | None:
    return None if reason is None else str(reason["type"])


# --- Anthropic --------------------------------------------------------------------------------


def test_the_same_request_again_and_the_next_turn_are_null() -> None:
    first = _claude()
    assert anthropic_diagnostics(ASKED, first, _claude(), DiagnosticsOptions()) is None
    assert anthropic_reason(first, _claude(messages=_turn_two())) is None


@pytest.mark.parametrize(
    ("later", "expected"),
    [
        (_claude(tool="read_file"), "tools_changed"),
        (_claude(system=SYSTEM + " Today is 2026-12-07 14:02."), "system_changed"),
        (_claude(model="claude-opus-4-1"), "model_changed"),
        (_claude(messages=_turn_two("go, now")), "messages_changed"),
    ],
    ids=["tool-renamed", "timestamp-in-system", "model", "earlier-message-edited"],
)
def test_a_change_is_named_with_the_tokens_it_missed(later: CacheRequest, expected: str) -> None:
    earlier = _claude(messages=_turn_two())
    found = anthropic_diagnostics(ASKED, earlier, later, DiagnosticsOptions())
    assert found is not None
    reason = found["cache_miss_reason"]
    assert reason["type"] == expected
    # A magnitude of what the earlier prompt held past the change: the model misses it all.
    missed = reason["cache_missed_input_tokens"]
    assert 0 < missed <= earlier.tokens
    assert (missed == earlier.tokens) == (expected == "model_changed")


def test_only_the_earliest_divergence_is_named_system_before_tools() -> None:
    later = _claude(system=SYSTEM + " (edited)", tool="read_file")
    assert _type(anthropic_reason(_claude(), later)) == "system_changed"


@pytest.mark.parametrize(
    "later",
    [
        _claude(output_config={"effort": "low"}),
        _claude(thinking={"type": "enabled", "budget_tokens": 2048}),
        _claude(tool_choice={"type": "any"}),
        _claude(context_management={"edits": [{"type": "clear_thinking_20251015"}]}),
        _claude(headers=[("anthropic-beta", "context-1m-2025-08-07")]),
    ],
    ids=["effort", "thinking", "tool-choice", "context-management", "betas"],
)
def test_another_prompt_parameter_changed_is_unavailable_without_tokens(
    later: CacheRequest,
) -> None:
    assert anthropic_reason(_claude(), later) == {"type": "unavailable"}


def test_an_unknown_id_is_not_found_and_pending_is_an_empty_reason() -> None:
    later = _claude()
    found = anthropic_diagnostics(ASKED, None, later, DiagnosticsOptions())
    assert found == {"cache_miss_reason": {"type": "previous_message_not_found"}}
    pending = anthropic_diagnostics(ASKED, None, later, DiagnosticsOptions(pending=True))
    assert pending == {"cache_miss_reason": None}
    first_turn = DiagnosticsAsk("anthropic", True, None)
    assert anthropic_diagnostics(first_turn, None, later, DiagnosticsOptions()) is None


def test_an_expired_entry_is_null_beside_a_read_of_zero() -> None:
    """The provider compares fingerprints, not what its cache held: after the cache's five
    minutes and within the fingerprint's hour, the same request is `null` and reads nothing,
    and ctxconf's cause for it, the lifetime, agrees with that `null`."""
    store = Fingerprints(retention=3600.0)
    marked = [user(block("go", marked=True))]
    first, again = _claude(messages=marked, at=0.0), _claude(messages=marked, at=600.0)
    store.keep("msg_01first", first)
    earlier = store.find("msg_01first", again.time)
    assert anthropic_diagnostics(ASKED, earlier, again, DiagnosticsOptions()) is None
    outcomes = simulate("anthropic", [first, again])
    assert outcomes[0].figures is not None and outcomes[0].figures.cache_write > 0
    assert outcomes[1].figures is not None and outcomes[1].figures.cache_read == 0
    diagnosis = audit("anthropic", [first, again]).diagnoses[1]
    causes = [c.kind for c in diagnosis.causes] if diagnosis is not None else []
    assert causes == ["expired"]
    assert agreement(no_change("anthropic"), causes[0]) is True
    # Past the fingerprint's own retention, the id is no longer found.
    assert store.find("msg_01first", 3601.0) is None


def test_ga_keeps_what_opted_in_and_beta_what_sent_the_header() -> None:
    ga, beta = DiagnosticsOptions(), DiagnosticsOptions(beta=True)
    header_alone = DiagnosticsAsk("anthropic", False, None, header=True)
    object_alone = DiagnosticsAsk("anthropic", True, "msg_01x")
    both = DiagnosticsAsk("anthropic", True, "msg_01x", header=True)
    assert [keeps(a, ga) for a in (header_alone, object_alone, both)] == [False, True, True]
    assert [keeps(a, beta) for a in (header_alone, object_alone, both)] == [True, False, True]
    # A harness sending the beta header without the object gets nothing, in either mode.
    assert [carries(a, beta) for a in (header_alone, object_alone, both)] == [False, False, True]
    assert not carries(header_alone, ga)
    assert ANTHROPIC_BETA == "cache-diagnosis-2026-04-07"


# --- OpenAI Responses -------------------------------------------------------------------------

INSTRUCTIONS = "You are Codex. " + text(8000)
FUNCTION = {"type": "function", "name": "shell", "parameters": SCHEMA, "strict": False}


def _codex(
    items: list[dict[str, Any]] | None = None,
    model: str = "gpt-5.6",
    instructions: str = INSTRUCTIONS,
    name: str = "shell",
    **extra: Any,
) -> CacheRequest:
    tools = [{**FUNCTION, "name": name}]
    body = responses(instructions, items or [_said("go")], model, tools=tools, **extra)
    return read_request("openai-responses", body)


def _said(words: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": words}]}


def test_openai_same_request_and_next_turn_are_hits() -> None:
    first = _codex()
    assert openai_diagnostics(first, _codex()) == {"type": "cache_hit"}
    call = {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "ok"}
    assert openai_diagnostics(first, _codex([_said("go"), call, output])) == {"type": "cache_hit"}


@pytest.mark.parametrize(
    ("later", "reason"),
    [
        (_codex(name="exec_command"), "tools_changed"),
        (_codex(reasoning={"effort": "high"}), "reasoning_effort_changed"),
        (_codex(prompt_cache_key="another"), "prompt_cache_key_changed"),
        (_codex(model="gpt-5.7"), "model_changed"),
        (_codex(service_tier="priority"), "service_tier_changed"),
        (_codex(text={"verbosity": "low"}), "verbosity_changed"),
        (_codex(text={"format": {"type": "json_object"}}), "text_format_changed"),
        (_codex(instructions=INSTRUCTIONS + " Now 14:02."), "input_changed"),
        (_codex([{"type": "compaction", "encrypted_content": "e"}]), "context_compacted"),
    ],
    ids=[
        "tool-renamed",
        "effort",
        "cache-key",
        "model",
        "service-tier",
        "verbosity",
        "text-format",
        "instructions",
        "compacted",
    ],
)
def test_openai_names_the_first_reason_with_its_tokens(later: CacheRequest, reason: str) -> None:
    earlier = _codex()
    found = openai_diagnostics(earlier, later)
    assert found["type"] == "cache_miss" and found["reason"] == reason
    missed, reusable = found["cache_missed_tokens"], found["comparison_reusable_tokens"]
    assert missed + reusable == earlier.tokens and missed > 0


def test_openai_unavailable_not_found_and_under_the_minimum() -> None:
    first = _codex()
    assert openai_diagnostics(None, first) == {"type": "comparison_response_not_found"}
    older = _codex(model="gpt-5.4")
    assert openai_diagnostics(older, older) == {"type": "unavailable"}  # no diagnostics before 5.6
    short = _codex(instructions="You are Codex.")
    assert openai_diagnostics(short, short) == {"type": "unavailable"}  # under 1,024 tokens
