"""What a break cost, from bodies real harnesses sent (tests/cache/recorded/): each loss worked
out here from the recorded requests alone, by the provider's rule for the request the harness
would have sent without its change, and held to the cache audit's."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from ctxconf.cache import Audit, CacheRequest, audit
from ctxconf.cache.openai_rules import stepped
from ctxconf.shapes import read_request

RECORDED = Path(__file__).parent / "recorded"


def _session(name: str) -> tuple[str, list[dict[str, Any]], list[CacheRequest]]:
    with gzip.open(RECORDED / f"{name}.jsonl.gz", "rt", encoding="utf-8") as lines:
        entries = [json.loads(line) for line in lines]
    requests = [
        read_request(
            e["shape"],
            e["body"],
            list(e["cache"]["headers"].items()),
            e["cache"]["at"],
            model=e["cache"]["model"],
            number=e["n"],
        )
        for e in entries
    ]
    return entries[0]["cache"]["provider"], entries, requests


def _audited(name: str) -> tuple[list[dict[str, Any]], list[CacheRequest], Audit]:
    provider, entries, requests = _session(name)
    return entries, requests, audit(provider, requests)


def test_gemini_cli_dropping_a_thought_signature_loses_all_it_resent_unchanged() -> None:
    # Request 5 (a new process resuming) drops thoughtSignature from the first model message:
    # the byte-for-byte share ends there, yet everything after it was resent unchanged. Kept,
    # the request holds request 4 whole, and Gemini reads the longest held prefix: all of it.
    entries, requests, result = _audited("gemini-cli-basic-0.61.0")
    fifth = requests[4]
    outcome, diagnosis = result.outcomes[4], result.diagnoses[4]
    assert outcome.figures is not None and diagnosis is not None
    expected = requests[3].tokens - outcome.figures.cache_read
    assert diagnosis.lost == diagnosis.loss.harness == expected == 12661
    assert diagnosis.shared == outcome.figures.cache_read == 12229  # the old figure lost 0
    cause = diagnosis.causes[0]
    assert (cause.kind, cause.unit) == ("reasoning-stripped", "contents.1.parts.0")
    assert cause.anchor == "pfx.reasoning.kept"
    assert cause.detail == (
        "message 1 (model)'s thoughtSignature was left out; a "
        "functionResponse block repeated: contents.2.parts.1 says again what contents.2.parts.0 "
        "says, and 2 more"
    )
    assert fifth.number == entries[4]["n"] == 5


def test_codex_adding_a_late_tool_loses_what_the_tools_kept_would_have_read() -> None:
    # Request 3 lists the MCP server's tool among the tools: the share stops inside the tools.
    # Without the tool it would hold request 2 whole, read by OpenAI in 128-token steps.
    _, requests, result = _audited("codex-mcp-late-0.171.0")
    outcome, diagnosis = result.outcomes[2], result.diagnoses[2]
    assert outcome.figures is not None and diagnosis is not None
    expected = stepped(requests[1].tokens) - outcome.figures.cache_read
    assert diagnosis.lost == expected == 6400
    assert diagnosis.shared - outcome.figures.cache_read == 110  # what "re-read" said
    assert [c.kind for c in diagnosis.causes] == ["tools-added", "rounding"]
    assert diagnosis.causes[0].detail == "tool added: mcp__probe"
    # What is past the last 128-token step of the best case is the provider's, apart.
    assert diagnosis.loss.provider == requests[1].tokens - stepped(requests[1].tokens) == 90


def test_claude_code_remaking_its_prompt_at_compaction_loses_the_prompt_s_entry() -> None:
    # Request 6 (the compacted session's first) sends another billing line in system[0] and a
    # new history. The history's change is the compaction's; the prompt's is the harness's:
    # kept, the request would have read request 5's entry at its last mark on the tools and
    # system prompt, and nothing of the new history.
    _, requests, result = _audited("claude-code-compact-2.1.332")
    outcome, diagnosis = result.outcomes[5], result.diagnoses[5]
    assert outcome.figures is not None and diagnosis is not None
    assert outcome.figures.cache_read == 0
    fifth = requests[4]
    through = fifth.unit_tokens_through
    marked = [i for i, u in enumerate(fifth.units) if u.ttl and u.section != "messages"]
    expected = through[marked[-1]]
    assert diagnosis.lost == diagnosis.loss.harness == expected == 19034
    cause = diagnosis.causes[0]
    assert (cause.kind, cause.unit) == ("system-text", "system.0")
    assert cause.diff is not None and "cc_version=2.1.332." in cause.diff.later
    # The old figure, shared less read, was what the share happened to stop at.
    assert diagnosis.shared == 11828


@pytest.mark.parametrize(
    "name", ["gemini-cli-basic-0.61.0", "codex-mcp-late-0.171.0", "claude-code-compact-2.1.332"]
)
def test_the_mock_s_figures_are_the_audit_s(name: str) -> None:
    entries, _, result = _audited(name)
    for entry, outcome in zip(entries, result.outcomes, strict=True):
        assert outcome.figures is not None
        usage = entry["usage"]
        assert (usage["input_total"], usage["cached"], usage["written"]) == (
            outcome.figures.input_total,
            outcome.figures.cache_read,
            outcome.figures.cache_write,
        )
