"""audit/readers/claude_code.py over hand-written transcripts: block lines deduplicated, the
placeholder input, the 5m/1h split, boundaries, a subagent, the rebuilt request side, and
hostile files."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from ctxconf.audit.readers.claude_code import READER
from ctxconf.audit.record import TokenClasses

from .helpers import (
    FIXTURES,
    assert_empty_file_reads_nothing,
    assert_hostile_problems,
    hostile_lines,
    read_all,
)

SESSION = "7f0c2a51-0000-4000-8000-000000000001"
MAIN = FIXTURES / "claude_code" / f"{SESSION}.jsonl"
SUBAGENT = FIXTURES / "claude_code" / SESSION / "subagents" / "agent-a1b2c3.jsonl"


def test_three_block_lines_of_one_request_id_are_one_request() -> None:
    requests, problems = read_all(READER, MAIN)
    assert problems == []
    first = requests[0]
    # Lines 2-4 share requestId req_011; the largest input (12, not the placeholder 1) and
    # output (150, not 5) are the request's; the split says all 20,000 written were 1h.
    assert first.place.line == 2
    assert first.request_id == "req_011"
    assert first.tokens == TokenClasses(
        uncached=12, read=0, written_5m=0, written_1h=20000, output=150
    )
    assert first.extra["input_values"] == [1, 12]
    assert "input_placeholder" not in first.extra
    assert first.time == datetime(2026, 12, 1, 10, 0, 2, tzinfo=timezone.utc)
    assert (first.model, first.provider, first.harness) == (
        "claude-sonnet-4-5",
        "anthropic",
        "claude-code",
    )
    assert (first.harness_version, first.project, first.session) == (
        "2.1.200",
        "/home/u/proj",
        SESSION,
    )
    assert first.boundary is None and first.sidechain is False and first.body is None


def test_a_null_request_id_falls_back_to_the_message_id() -> None:
    requests, _ = read_all(READER, MAIN)
    second = requests[1]
    # Lines 6-7: requestId null, both msg_012: one request.
    assert second.place.line == 6
    assert second.request_id is None
    assert second.extra["message_id"] == "msg_012"
    assert second.diagnostics == {"cache_miss_reason": None}


def test_a_lone_zero_input_beside_a_large_read_is_flagged_as_a_placeholder() -> None:
    second = read_all(READER, MAIN)[0][1]
    assert second.tokens.uncached == 0
    assert second.extra["input_placeholder"] is True


def test_creation_without_the_split_takes_the_lifetime_the_line_asked_for() -> None:
    requests, _ = read_all(READER, MAIN)
    # msg_012 asked for 1h: all 300 are 1h writes; line 10 asked nothing: 100 are 5m.
    assert requests[1].lifetime == "1h"
    assert requests[1].tokens == TokenClasses(0, 20000, 0, 300, 40)
    assert requests[3].lifetime is None
    assert requests[3].tokens == TokenClasses(7, 0, 100, 0, 3)


def test_lines_without_either_id_are_each_a_request_and_no_cache_field_is_na() -> None:
    requests, _ = read_all(READER, MAIN)
    # Lines 9 and 10 have neither id; line 11 (<synthetic>) is no request.
    assert [r.place.line for r in requests] == [2, 6, 9, 10]
    na = requests[2].tokens
    assert na == TokenClasses(500, None, None, None, 9)
    assert na.has_cache_figures is False and na.written is None


def test_boundaries_compaction_version_and_model() -> None:
    requests, _ = read_all(READER, MAIN)
    assert requests[2].boundary == "compaction; version 2.1.200 → 2.1.201"
    assert requests[3].boundary == "model claude-sonnet-4-5 → claude-haiku-4-5"
    assert requests[3].diagnostics == {"cache_miss_reason": {"type": "model_changed"}}


def test_the_harness_tally_goes_on_the_last_request_only() -> None:
    requests, _ = read_all(READER, MAIN)
    assert requests[-1].extra["harness_total_cost_usd"] == 0.4321
    assert all("harness_total_cost_usd" not in r.extra for r in requests[:-1])
    assert all(r.cost_usd is None for r in requests)


def test_a_subagent_file_is_a_sidechain_of_its_own_with_its_parent_named() -> None:
    (request,), problems = read_all(READER, SUBAGENT)
    assert problems == []
    assert request.sidechain is True
    assert request.session == "agent-a1b2c3"
    assert request.extra["parent_session"] == SESSION
    assert request.tokens == TokenClasses(40, 0, 5000, 0, 12)


def test_an_older_agent_file_beside_the_session_is_a_sidechain(tmp_path: Path) -> None:
    older = tmp_path / "agent-9f8e7d.jsonl"
    older.write_bytes(SUBAGENT.read_bytes())
    (request,), _ = read_all(READER, older)
    assert request.sidechain is True
    assert request.session == "agent-9f8e7d"
    assert request.extra["parent_session"] == SESSION


def test_claims_its_own_files_and_not_others(tmp_path: Path) -> None:
    assert READER.claims(MAIN, MAIN.read_bytes()[:65536])
    assert READER.claims(SUBAGENT, SUBAGENT.read_bytes())
    codex = b'{"timestamp":"x","type":"session_meta","payload":{"id":"s"}}\n'
    gemini = b'{"sessionId":"s","projectHash":"h","startTime":"x","lastUpdated":"x"}\n'
    assert not READER.claims(tmp_path / "rollout-x.jsonl", codex)
    assert not READER.claims(tmp_path / "session-x.jsonl", gemini)
    assert not READER.claims(tmp_path / "a.json", MAIN.read_bytes())
    assert READER.places(tmp_path) == [
        tmp_path / ".claude" / "projects",
        tmp_path / ".config" / "claude" / "projects",
    ]


# The request side of 2.1.332: shapes, blobs and request lines, the hashes made here.


def _hash(message: dict[str, Any]) -> str:
    text = json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


SYSTEM = [{"type": "text", "text": "You are a coding agent."}]
TOOLS = [{"name": "Read", "description": "Read a file", "input_schema": {"type": "object"}}]
ASK = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
REPLY = {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}
MORE = {"role": "user", "content": [{"type": "text", "text": "more"}]}


def _assistant(ref: str, message_id: str, read: int) -> dict[str, Any]:
    usage = {"input_tokens": 5, "cache_read_input_tokens": read, "output_tokens": 2}
    return {
        "type": "assistant",
        "sessionId": "s332",
        "version": "2.1.332",
        "requestRef": ref,
        "apiBlockIndex": 0,
        "promptCacheRequested": "1h",
        "message": {
            "id": message_id,
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": REPLY["content"],
            "usage": usage,
        },
    }


def _request_side(tmp_path: Path) -> Path:
    params = {"model": "claude-sonnet-4-5", "max_tokens": 32000, "betas": ["b1"]}
    lines = [
        {"type": "api-request-shape", "shapeHash": "sh1", "system": SYSTEM, "tools": TOOLS},
        {"type": "api-request-blob", "hash": _hash(ASK), "message": ASK},
        {
            "type": "api-request",
            "id": "ar1",
            "shapeHash": "sh1",
            "params": params,
            "keep": 0,
            "tail": [_hash(ASK)],
            "cacheControl": ["system.0", "messages.0.content.0"],
            "querySource": "repl_main_thread",
        },
        _assistant("ar1", "msg_1", 0),
        {"type": "api-request-blob", "hash": _hash(MORE), "message": MORE},
        {
            "type": "api-request",
            "id": "ar2",
            "shapeHash": "sh1",
            "params": params,
            "keep": 1,
            "tail": [_hash(REPLY), _hash(MORE)],
            "cacheControl": [["messages", 2, "content", 0]],
            "querySource": "repl_main_thread",
        },
        _assistant("ar2", "msg_2", 900),
    ]
    path = tmp_path / "s332.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_the_request_side_is_rebuilt_with_its_marks(tmp_path: Path) -> None:
    requests, problems = read_all(READER, _request_side(tmp_path))
    assert problems == []
    first, second = requests
    mark = {"type": "ephemeral", "ttl": "1h"}
    assert first.shape == second.shape == "anthropic"
    assert first.body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 32000,
        "system": [{**SYSTEM[0], "cache_control": mark}],
        "tools": TOOLS,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": mark}]}
        ],
    }
    # The second keeps the first message unmarked: a mark put on one body is not on another.
    assert second.body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 32000,
        "system": SYSTEM,
        "tools": TOOLS,
        "messages": [
            ASK,
            REPLY,
            {"role": "user", "content": [{"type": "text", "text": "more", "cache_control": mark}]},
        ],
    }
    assert "billing header" in second.extra["body_note"]


def test_a_tail_with_no_blob_leaves_the_body_out_and_says_why(tmp_path: Path) -> None:
    path = _request_side(tmp_path)
    lines = path.read_text().splitlines()
    kept = [line for line in lines if json.loads(line).get("hash") != _hash(MORE)]
    assert len(kept) == len(lines) - 1
    path.write_text("\n".join(kept) + "\n")
    first, second = read_all(READER, path)[0]
    assert first.body is not None
    assert second.body is None and second.shape is None
    assert "in no blob" in second.extra["body_note"]


def test_hostile_lines_are_one_problem_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = MAIN.read_text(encoding="utf-8").splitlines()[1:4]  # the three lines of req_011
    requests, problems, path = hostile_lines(READER, tmp_path, "s.jsonl", good, monkeypatch)
    assert_hostile_problems(problems, path, [2, 3, 6])
    assert [r.place.line for r in requests] == [1]
    assert requests[0].tokens.uncached == 12


def test_an_empty_file_reads_nothing(tmp_path: Path) -> None:
    assert_empty_file_reads_nothing(READER, tmp_path, "empty.jsonl")


def test_a_first_line_longer_than_the_head_is_still_claimed(tmp_path: Path) -> None:
    line = MAIN.read_text().splitlines()[0]
    head = line.replace("read the readme", "x" * 70000).encode()[:65536]
    assert READER.claims(tmp_path / "s.jsonl", head)


def test_a_real_transcripts_bodies_hold_its_shapes_system_tools_and_marks() -> None:
    # Written by Claude Code 2.1.332 against the mock: the shape line holds the system blocks
    # and tools under `shape`, each request line its marks as paths with their values, and
    # `base` the request whose messages it keeps.
    folder = FIXTURES / "real" / "claude-code-2.1.332-compact" / ".claude" / "projects"
    [path] = folder.glob("*/*.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    shape = next(line["shape"] for line in lines if line["type"] == "api-request-shape")
    sent = [line for line in lines if line["type"] == "api-request"]
    requests, problems = read_all(READER, path)
    assert problems == []
    bodies = [r.body for r in requests]
    assert len(bodies) == len(sent) == 5 and all(b is not None for b in bodies)
    for body, line in zip(bodies, sent, strict=True):
        assert body is not None
        assert [t["name"] for t in body["tools"]] == [t["name"] for t in shape["tools"]]
        assert [b["text"] for b in body["system"]] == [b["text"] for b in shape["system"]]
        for mark in line["cacheControl"]:
            place: Any = body
            for step in mark["path"]:
                place = place[step]
            assert place["cache_control"] == mark["value"]
        assert len(body["messages"]) == line["keep"] + len(line["tail"])
    assert all(not r.body_complete for r in requests)  # system[0] is never in the transcript
