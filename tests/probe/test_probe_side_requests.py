"""A side request: one that branches from the loop's history with a prompt of the harness's own
(a title, a summary), under the loop's own system prompt and tools, the cache-friendly way. It
is never a rewrite of the history, never a turn, and the mock plays no step for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxconf.shapes import parse_request
from ctxconf.shapes.wire import ends_with_own_prompt

from .helpers import checks_of, run_fake

SAID = ("Read A.txt and tell me how long it is.",)
TITLE = "Give this conversation a title of at most six words."


def chat(*tail: dict[str, Any]) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "system", "content": "prompt"},
            {"role": "user", "content": SAID[0]},
            {"role": "assistant", "content": "A.txt has 20 lines."},
            *tail,
        ]
    }


@pytest.mark.parametrize(
    ("tail", "side"),
    [
        ([{"role": "user", "content": TITLE}], True),
        ([{"role": "user", "content": "Now " + SAID[0]}], False),  # the scenario's message
        ([], False),  # ends with the answer
        (
            [
                {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "bash"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "out"},
                {"role": "user", "content": "(Reminder: answer briefly.)"},
            ],
            False,  # the loop's own reminder after a result
        ),
    ],
    ids=["own-prompt", "scenario-message", "no-prompt", "after-a-result"],
)
def test_a_side_request_ends_with_a_prompt_of_its_own_after_the_loops_history(
    tail: list[dict[str, Any]], side: bool
) -> None:
    assert ends_with_own_prompt(parse_request("openai-chat", chat(*tail)), SAID) is side


def test_a_prompt_of_its_own_with_no_history_of_the_scenario_is_no_side_request() -> None:
    body = {"messages": [{"role": "user", "content": TITLE}]}
    assert not ends_with_own_prompt(parse_request("openai-chat", body), SAID)


def test_an_anthropic_user_message_holding_results_is_the_loops() -> None:
    body = {
        "messages": [
            {"role": "user", "content": SAID[0]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash"}]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "out"},
                    {"type": "text", "text": TITLE},
                ],
            },
        ]
    }
    assert not ends_with_own_prompt(parse_request("anthropic", body), SAID)


BASIC_CHECKS = ("system-once", "tools-fixed", "history-prefix", "usage-shown")
MIDNIGHT_CHECKS = ("system-once", "no-clock", "tools-fixed", "history-prefix", "date-note")


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["chat", "responses", "anthropic", "gemini"])
def test_a_side_question_after_each_turn_is_set_aside_not_a_rewrite(
    tmp_path: Path, shape: str
) -> None:
    # Before, the next loop request was taken to rewrite the side question's prompt.
    checks = checks_of(run_fake(tmp_path, shape, variant="asks_aside"))
    for check_id in BASIC_CHECKS:
        assert checks[check_id].verdict == "pass", checks[check_id]
    aside = "; 2 side requests of the harness's own set aside"
    assert checks["system-once"].summary.endswith(aside)
    assert checks["history-prefix"].figures["pairs"] == 5


@pytest.mark.parametrize("variant", [None, "asks_aside"], ids=["clean", "asks-aside"])
def test_a_side_question_is_no_turn_at_midnight(tmp_path: Path, variant: str | None) -> None:
    # Before, the side question after turn 1 was played as turn 2's first step, so turn 2 was
    # found to run before midnight and five checks said `error`.
    run = run_fake(tmp_path, "anthropic", "midnight", variant=variant)
    checks = checks_of(run)
    for check_id in MIDNIGHT_CHECKS:
        assert checks[check_id].verdict == "pass", checks[check_id]
    entries = [e for e in run.sessions[0].entries if e.get("kind") == "answer"]
    sides = [e for e in entries if TITLE in str(e["body"])]
    assert len(sides) == (2 if variant else 0)
    assert all(e["step"] is None and e["reply"]["text"] for e in sides)
