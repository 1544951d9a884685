"""The model's reasoning under the providers' rules: what a last-turn-only model's provider drops
by itself (no harness's doing, nothing billed), and a keep-all model's reasoning stripped,
rewritten or moved by the harness, each named with its rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxconf.cache import audit
from ctxconf.cache.reasoning import drops_earlier, provider_reads
from ctxconf.cache.reasoning_models import (
    binds_blocks,
    chat_family,
    last_turn_only,
    last_turn_only_names,
    requires_signature,
)
from ctxconf.errors import DataError
from ctxconf.specdata.reader import read_loop

from .bodies import assistant, block, claude, text, tool_result, tool_use, user
from .helpers import cause, kinds, requests

THINKING = {"type": "thinking", "thinking": "I should read A.txt first.", "signature": "EqQBsig"}
SYSTEM = [block(text(24000, "s"), marked=True)]
SPEC = Path(__file__).resolve().parents[2] / "spec"


def _call(n: int) -> dict[str, Any]:
    return tool_use(f"call_{n}", "Read", {"file_path": "A.txt"})


def _session(model: str, strip: bool) -> list[dict[str, Any]]:
    """Turn 1: a call with its thinking, its result, an answer; turn 2: a new message. With
    `strip`, turn 2's request leaves out turn 1's thinking."""
    turn1 = [
        user(block("Read A.txt.")),
        assistant(THINKING, _call(1)),
        user(tool_result("call_1", text(4000, "r"), marked=True)),
    ]
    answered = [*turn1, assistant(block("It has 20 lines."))]
    if strip:
        answered[1] = assistant(_call(1))
    turn2 = [*answered, user(block("Again, please.", marked=True))]
    return [claude(SYSTEM, turn1, model=model), claude(SYSTEM, turn2, model=model)]


def _audited(model: str, strip: bool) -> Any:
    bodies = _session(model, strip)
    return audit("anthropic", requests("anthropic", [(0, bodies[0]), (10, bodies[1])]))


def test_a_keep_all_model_reads_earlier_thinking_sent_as_it_came() -> None:
    assert kinds(_audited("claude-opus-4-6", strip=False)) == [[], []]


def test_stripping_a_keep_all_models_thinking_is_the_harness_s_loss() -> None:
    result = _audited("claude-opus-4-6", strip=True)
    found = cause(result, 1)
    assert (found.kind, found.anchor, found.unit) == (
        "reasoning-stripped",
        "pfx.reasoning.kept",
        "messages.1.content.0",
    )
    assert found.detail.startswith("message 1 (assistant)'s thinking was left out")
    assert found.byte is not None
    diagnosis = result.diagnoses[1]
    assert diagnosis is not None and diagnosis.lost > 0


def test_a_last_turn_only_models_provider_drops_earlier_thinking_by_itself() -> None:
    result = _audited("claude-sonnet-4-5-20250929", strip=False)
    found = cause(result, 1)
    assert (found.kind, found.anchor) == ("reasoning-dropped", None)
    assert "no harness's doing" in found.detail
    diagnosis = result.diagnoses[1]
    assert diagnosis is not None and diagnosis.loss.harness == 0


def test_leaving_out_what_the_provider_drops_changes_nothing() -> None:
    kept, stripped = _audited("claude-haiku-4-5", False), _audited("claude-haiku-4-5", True)
    read = [o.figures.cache_read if o.figures else None for o in kept.outcomes]
    assert read == [o.figures.cache_read if o.figures else None for o in stripped.outcomes]
    assert kinds(stripped)[1][:1] in ([], ["reasoning-dropped"])
    diagnosis = stripped.diagnoses[1]
    assert diagnosis is None or diagnosis.loss.harness == 0


def test_the_dropped_blocks_are_not_billed() -> None:
    bodies = _session("claude-sonnet-4-5", strip=False)
    later = requests("anthropic", [(10, bodies[1])])[0]
    read = provider_reads("anthropic", later)
    assert read.dropped == ("messages.1.content.0",)
    assert read.tokens < later.tokens
    # The message's fields stay where its first block went: the rest of it reads the same.
    assert [u.kind for u in read.units if u.message == 1] == ["message", "tool_use"]
    assert provider_reads("anthropic", read) is read


def test_a_rewritten_signature_is_named() -> None:
    bodies = _session("claude-opus-4-6", strip=False)
    changed = {**THINKING, "signature": "EqQBother"}
    bodies[1]["messages"][1] = assistant(changed, _call(1))
    result = audit("anthropic", requests("anthropic", [(0, bodies[0]), (10, bodies[1])]))
    found = cause(result, 1)
    assert (found.kind, found.anchor) == ("reasoning-rewritten", "pfx.reasoning.kept")


def test_a_thinking_block_moved_after_its_call_is_named() -> None:
    bodies = _session("claude-opus-4-6", strip=False)
    bodies[1]["messages"][1] = assistant(_call(1), THINKING)
    result = audit("anthropic", requests("anthropic", [(0, bodies[0]), (10, bodies[1])]))
    assert cause(result, 1).kind == "reasoning-moved"


def test_openai_reasoning_context_decides_over_the_model() -> None:
    def responses(context: str | None) -> Any:
        reasoning: dict[str, Any] = {"effort": "low"}
        if context:
            reasoning["context"] = context
        body = {"model": "gpt-5.6", "input": [], "reasoning": reasoning}
        return requests("openai-responses", [(0, body)])[0]

    assert not drops_earlier("openai", responses(None))
    assert drops_earlier("openai", responses("current_turn"))
    older = requests("openai-responses", [(0, {"model": "gpt-5.2", "input": []})])[0]
    assert drops_earlier("openai", older)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("claude-sonnet-4-5", True),
        ("claude-sonnet-4-5-20250929", True),
        ("anthropic/claude-haiku-4-5", True),
        ("claude-sonnet-4-6", False),
        ("claude-sonnet-4-50", False),
        ("claude-opus-4-5", False),
    ],
)
def test_last_turn_only_models_are_named_or_dated(model: str, expected: bool) -> None:
    assert last_turn_only("anthropic", model) is expected


def test_the_model_families_agree_with_the_spec() -> None:
    listed = read_loop(SPEC)["prefix"]["reasoning"]["last_turn_only"]
    names = last_turn_only_names()
    assert sorted(names["anthropic"] + names["openai"]) == sorted(listed)


def test_the_other_families() -> None:
    assert binds_blocks("claude-fable-5-1") and not binds_blocks("claude-opus-4-6")
    assert requires_signature("gemini-3-pro-preview")
    assert not requires_signature("gemini-2.5-flash")
    assert chat_family("kimi").refusal is not None
    with pytest.raises(DataError, match=r"unknown reasoning family 'grok': one of deepseek"):
        chat_family("grok")
