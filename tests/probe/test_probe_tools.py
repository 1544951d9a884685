"""A tool is its whole definition: a change to its name, description or input schema, or to the
order of the list, fails `tools-fixed` with what changed, and breaks the mock's simulated cache
where a provider's would break."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxconf.probe.server import MockModel, Script
from ctxconf.probe.wire import parse_request

from .helpers import checks_of, run_fake


@pytest.mark.slow
@pytest.mark.parametrize(
    ("part", "shape", "said"),
    [
        ("description", "chat", "the description of `bash` changed on request 3: "),
        ("description", "gemini", "the description of `run_shell_command` changed on request 3"),
        ("description", "responses", "the description of `exec_command` changed on request 3"),
        ("schema", "anthropic", "the input schema of `Bash` changed on request 3: at /properties"),
        ("order", "anthropic", "the order of the tools changed on request 3"),
        ("added", "chat", "the tool list changed on request 3: `todo` added"),
    ],
)
def test_a_changed_definition_fails_and_is_named_where_the_clean_twin_passes(
    tmp_path: Path, part: str, shape: str, said: str
) -> None:
    changed = checks_of(
        run_fake(tmp_path / "f", shape, variant="changing_tool", options=("--part", part))
    )["tools-fixed"]
    assert changed.verdict == "fail", changed
    assert said in changed.summary, changed.summary
    clean = checks_of(run_fake(tmp_path / "c", shape))["tools-fixed"]
    assert clean.verdict == "pass", clean


def _body(description: str, last: str) -> dict[str, object]:
    tool = {"name": "bash", "description": description, "parameters": {"type": "object"}}
    messages = [
        {"role": "system", "content": "You help. " * 100},
        {"role": "user", "content": last},
    ]
    return {"tools": [{"type": "function", "function": tool}], "messages": messages}


def test_the_simulated_cache_breaks_at_a_changed_description(tmp_path: Path) -> None:
    model = MockModel(Script([], "/work"), tmp_path / "log.jsonl")
    first = model.tokens(parse_request("openai-chat", _body("Run a command.", "go")))
    same = model.tokens(parse_request("openai-chat", _body("Run a command.", "go on")))
    changed = model.tokens(parse_request("openai-chat", _body("Run any command.", "go on")))
    assert first.cached == 0
    # Unchanged tools: all but the last message is cached; a changed description: nothing after
    # the system prompt (the tools come after it in the mock's order of the request).
    assert same.cached > changed.cached
    system_only = len('"' + "You help. " * 100 + '"') // 4
    assert changed.cached <= system_only + 10
