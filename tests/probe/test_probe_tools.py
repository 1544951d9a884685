"""A tool is its whole definition: a change to its name, description or input schema, or to the
order of the list, fails `tools-fixed` with what changed, and breaks the mock's simulated cache
where a provider's would break."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxconf.probe.server import MockModel, Script

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
        {"role": "system", "content": "You help. " * 800},  # past OpenAI's 1,024-token minimum
        {"role": "user", "content": last},
    ]
    tools = [{"type": "function", "function": tool}]
    return {"model": "gpt-5", "tools": tools, "messages": messages}


def test_the_simulated_cache_breaks_at_a_changed_description(tmp_path: Path) -> None:
    model = MockModel(Script([], "/work"), tmp_path / "log.jsonl")

    def read(description: str, last: str) -> int:
        body = _body(description, last)
        played = model.cache.play("openai-chat", body, [], "/v1/chat/completions")
        assert played.outcome.figures is not None
        return played.outcome.figures.cache_read

    assert read("Run a command.", "go") == 0  # nothing held yet
    # The same tools and system prompt: read from the cache. OpenAI hashes the tools first, so a
    # changed description leaves nothing before it to read.
    assert read("Run a command.", "go on") >= 1024
    assert read("Run any command.", "go on") == 0
