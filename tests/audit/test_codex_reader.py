"""audit/readers/codex.py over hand-written rollouts: repeated token_count events, a
last_token_usage that disagrees with the totals, the write field and its absence, the rebuilt
Responses bodies, boundaries, and hostile files."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from ctxconf.audit.readers.codex import READER
from ctxconf.audit.record import TokenClasses

from .helpers import (
    FIXTURES,
    assert_empty_file_reads_nothing,
    assert_hostile_problems,
    hostile_lines,
    read_all,
)

NEW = FIXTURES / "codex" / "rollout-2026-12-01T10-00-00-0199a1b2-c3d4-7000-8000-000000000001.jsonl"
OLD = FIXTURES / "codex" / "rollout-2026-12-02T09-00-00-0199a1b2-c3d4-7000-8000-000000000002.jsonl"


def _payloads(path: Path) -> list[Any]:
    return [json.loads(line)["payload"] for line in path.read_text().splitlines()]


def test_a_token_count_told_twice_is_one_response() -> None:
    requests, problems = read_all(READER, NEW)
    assert problems == []
    # Lines 8 and 9 carry the same totals: one response; line 12 is the second.
    assert [r.place.line for r in requests] == [8, 12]


def test_inclusive_figures_are_split_into_the_four_classes() -> None:
    first, second = read_all(READER, NEW)[0]
    # 10,000 sent, of which 0 read and 9,000 written: 1,000 uncached.
    assert first.tokens == TokenClasses(
        uncached=1000, read=0, written_5m=9000, written_1h=None, output=200
    )
    # 10,500 sent, 9,000 read, 1,200 written: 300 uncached.
    assert second.tokens == TokenClasses(300, 9000, 1200, None, 60)
    assert second.tokens.total_input == 10500
    assert first.extra == {"reasoning_output_tokens": 120}


def test_the_request_is_described_from_meta_and_turn_context() -> None:
    first = read_all(READER, NEW)[0][0]
    assert first.session == "0199a1b2-c3d4-7000-8000-000000000001"
    assert (first.model, first.provider, first.harness, first.harness_version) == (
        "gpt-5.3-codex",
        "openai",
        "codex",
        "0.171.0",
    )
    assert first.project == "/home/u/proj"
    assert first.time == datetime(2026, 12, 1, 10, 0, 4, 200000, tzinfo=timezone.utc)
    assert first.boundary is None


def test_each_body_holds_the_items_before_its_reply() -> None:
    first, second = read_all(READER, NEW)[0]
    items = _payloads(NEW)
    tools = items[0]["dynamic_tools"]
    assert first.shape == second.shape == "openai-responses"
    # Lines 3-4 went out first; the reasoning and call of lines 6-7 were its reply.
    assert first.body == {
        "model": "gpt-5.3-codex",
        "instructions": "You are Codex.",
        "input": [items[2], items[3]],
        "tools": tools,
    }
    # The second sent them back with the call's output (line 10); line 11 is its reply.
    assert second.body is not None
    assert second.body["input"] == [items[2], items[3], items[5], items[6], items[9]]


def test_a_build_without_the_write_field_has_writes_na() -> None:
    requests, problems = read_all(READER, OLD)
    assert problems == []
    assert [r.place.line for r in requests] == [5, 8, 12]  # line 13 has info: null
    assert requests[0].tokens == TokenClasses(4000, 0, None, None, 50)
    assert requests[0].tokens.written is None


def test_a_last_usage_that_disagrees_with_the_totals_is_kept_with_both() -> None:
    second = read_all(READER, OLD)[0][1]
    # The totals moved by 9,000 - 4,000 = 5,000 input; last_token_usage says 4,800.
    assert second.tokens == TokenClasses(4800 - 3500, 3500, None, None, 40)
    assert second.extra["total_mismatch"] == {
        "last_token_usage": {
            "input_tokens": 4800,
            "cached_input_tokens": 3500,
            "output_tokens": 40,
            "reasoning_output_tokens": 0,
        },
        "total_delta": {
            "input_tokens": 5000,
            "cached_input_tokens": 3500,
            "output_tokens": 40,
            "reasoning_output_tokens": 0,
        },
    }


def test_without_last_usage_the_change_of_the_totals_is_the_response() -> None:
    third = read_all(READER, OLD)[0][2]
    # 15,000 - 9,000 = 6,000 sent, 6,000 - 3,500 = 2,500 read, 120 - 90 = 30 out.
    assert third.tokens == TokenClasses(3500, 2500, None, None, 30)
    assert "total_mismatch" not in third.extra


def test_compaction_model_change_and_resume_after_a_gap() -> None:
    third = read_all(READER, OLD)[0][2]
    assert third.boundary == "compaction; model gpt-5-codex → gpt-5.1-codex; resume"
    assert third.model == "gpt-5.1-codex"
    items = _payloads(OLD)
    # The history after the compaction is its replacement, then the new message.
    assert third.body == {
        "model": "gpt-5.1-codex",
        "instructions": "You are Codex, an older build.",
        "input": [*items[8]["replacement_history"], items[10]],
    }


def test_a_compaction_without_replacement_stops_the_bodies(tmp_path: Path) -> None:
    lines = OLD.read_text().splitlines()
    compacted = json.loads(lines[8])
    del compacted["payload"]["replacement_history"]
    lines[8] = json.dumps(compacted)
    path = tmp_path / "rollout-x.jsonl"
    path.write_text("\n".join(lines) + "\n")
    requests = read_all(READER, path)[0]
    assert requests[1].body is not None
    assert requests[2].body is None and requests[2].shape is None


def test_a_second_session_meta_is_a_resume(tmp_path: Path) -> None:
    lines = NEW.read_text().splitlines()
    path = tmp_path / "rollout-y.jsonl"
    path.write_text("\n".join([*lines[:9], lines[0], *lines[9:]]) + "\n")
    first, second = read_all(READER, path)[0]
    assert second.boundary == "resume"
    assert second.session == first.session


def test_claims_rollouts_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert READER.claims(NEW, NEW.read_bytes())
    claude = b'{"parentUuid":null,"sessionId":"s","type":"user","message":{}}\n'
    gemini = b'{"sessionId":"s","projectHash":"h"}\n'
    assert not READER.claims(tmp_path / "s.jsonl", claude)
    assert not READER.claims(tmp_path / "s.jsonl", gemini)
    assert not READER.claims(tmp_path / "s.json", NEW.read_bytes())
    monkeypatch.delenv("CODEX_HOME", raising=False)
    assert READER.places(tmp_path) == [
        tmp_path / ".codex" / "sessions",
        tmp_path / ".codex" / "archived_sessions",
    ]
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "elsewhere"))
    assert tmp_path / "elsewhere" / "sessions" in READER.places(tmp_path)


def test_hostile_lines_are_one_problem_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = NEW.read_text().splitlines()
    good = [lines[0], lines[1], lines[7], lines[11]]
    requests, problems, path = hostile_lines(READER, tmp_path, "r.jsonl", good, monkeypatch)
    assert_hostile_problems(problems, path, [2, 3, 7])
    assert [r.place.line for r in requests] == [5, 6]
    assert [r.tokens.uncached for r in requests] == [1000, 300]


def test_an_empty_file_reads_nothing(tmp_path: Path) -> None:
    assert_empty_file_reads_nothing(READER, tmp_path, "rollout-empty.jsonl")


def test_a_first_line_longer_than_the_head_is_still_claimed(tmp_path: Path) -> None:
    line = NEW.read_text().splitlines()[0]
    head = line.replace("You are Codex.", "x" * 70000).encode()[:65536]
    assert READER.claims(tmp_path / "rollout-z.jsonl", head)
