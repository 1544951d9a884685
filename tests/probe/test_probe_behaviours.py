"""The behaviour checks read a result as the harness sent it: plain, labelled, or as JSON."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest

from ctxconf.probe.harness import ProbeRun, SessionRun
from ctxconf.probe.profile import load_profile
from ctxconf.probe.scenario import load_scenario

from .helpers import judge_one

TOOLS = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]


def _entry(n: int, step: int, result: str) -> dict[str, Any]:
    call = {
        "id": f"call_probe_{step - 1}",
        "type": "function",
        "function": {"name": "bash", "arguments": "{}"},
    }
    messages = [{"role": "system", "content": "p"}, {"role": "user", "content": "go"}]
    messages += [{"role": "assistant", "content": None, "tool_calls": [call]}] * step
    messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    body = {"messages": messages, "tools": TOOLS}
    return {
        "n": n,
        "kind": "answer",
        "shape": "openai-chat",
        "path": "/v1/chat/completions",
        "body": body,
        "step": step,
        "usage": {"cached": 0},
    }


@pytest.mark.parametrize(
    "result",
    [
        "1\n2\n[49996 lines elided]\n49999\n50000",
        "Output: 1\n2\n[49996 lines elided]\n49999\n50000",
        json.dumps(
            {
                "returncode": 0,
                "output_head": "1\n2\n",
                "output_tail": "49999\n50000\n",
                "elided_chars": 9,
            }
        ),
    ],
    ids=["plain", "labelled", "json"],
)
def test_head_and_tail_are_found_however_the_output_is_wrapped(result: str) -> None:
    run = ProbeRun(
        load_profile("pi"), load_scenario("basic"), None, datetime.now(), datetime.now(), None
    )
    run.sessions.append(SessionRun(0, None, [_entry(1, 3, result)], []))
    figures = judge_one("long-output", run).figures
    assert (figures["behaviour"], figures["head_lines"], figures["tail_lines"]) == (
        "head and tail",
        2,
        2,
    )


def test_a_harness_without_tools_has_its_output_found_in_its_messages() -> None:
    output = "\n".join(str(n) for n in range(1, 50001))
    messages = [
        {"role": "system", "content": "p"},
        {"role": "user", "content": "/run seq 1 50000"},
        {"role": "user", "content": f"Output of seq:\n{output}"},
    ]
    entry = {
        "n": 1,
        "kind": "answer",
        "shape": "openai-chat",
        "path": "/v1/chat/completions",
        "body": {"messages": messages},
        "step": None,
        "usage": {"cached": 0},
    }
    run = ProbeRun(
        load_profile("aider"), load_scenario("basic"), None, datetime.now(), datetime.now(), None
    )
    run.sessions.append(SessionRun(0, None, [entry], []))
    assert judge_one("long-output", run).figures["behaviour"] == "full"
    assert judge_one("reread", run).verdict == "not-testable"
