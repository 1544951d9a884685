"""The mock's own bytes are canonical: the arguments of the calls it makes are compact JSON, as
models emit them, so a harness that writes them back as JavaScript's JSON.stringify does sends
what it was sent, and one that adds spaces rewrites what it sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxconf.shapes import shape_named
from ctxconf.shapes.answers import Answer, Reply, Tokens

from .helpers import checks_of, run_fake


def test_the_mock_writes_call_arguments_as_compact_json() -> None:
    reply = Reply(tool="read", arguments={"path": "/work/A.txt", "limit": 2}, call_id="c")
    answer = Answer(reply, Tokens(1, 0, 1), "r", 0)
    chat = shape_named("openai-chat").body(answer)
    arguments = chat["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert arguments == '{"path":"/work/A.txt","limit":2}'
    assert arguments == json.dumps(json.loads(arguments), separators=(",", ":"))
    responses = shape_named("openai-responses").body(answer)
    assert responses["output"][0]["arguments"] == arguments


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["chat", "responses"])
def test_arguments_written_again_on_resume_pass_compact_and_fail_spaced(
    tmp_path: Path, shape: str
) -> None:
    compact = checks_of(
        run_fake(tmp_path / "c", shape, variant="reserializes", options=("--style", "compact"))
    )["history-prefix"]
    assert compact.verdict == "pass", compact
    spaced = checks_of(
        run_fake(tmp_path / "s", shape, variant="reserializes", options=("--style", "spaced"))
    )["history-prefix"]
    assert spaced.verdict == "fail", spaced
    assert "across a resume" in spaced.summary
