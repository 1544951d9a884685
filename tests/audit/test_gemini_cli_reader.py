"""audit/readers/gemini_cli.py over hand-written chats (JSON lines with `$set` and a doubled
message, a legacy document, a subagent) and telemetry (pretty-printed and one a line), and
hostile files."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ctxconf.audit.readers import base
from ctxconf.audit.readers.gemini_cli import READER
from ctxconf.audit.record import Place, TokenClasses

from .helpers import (
    FIXTURES,
    assert_empty_file_reads_nothing,
    assert_hostile_problems,
    hostile_lines,
    read_all,
)

HERE = FIXTURES / "gemini_cli"
CHAT = HERE / "session-2026-12-01T10-00-a1b2c3d4.jsonl"
LEGACY = HERE / "session-2026-11-01T09-00-legacy01.json"
TELEMETRY = HERE / "telemetry.log"


def test_a_message_written_twice_is_one_request_as_last_written() -> None:
    requests, problems = read_all(READER, CHAT)
    assert problems == []
    # m2 (lines 3 and 4), m3, m4, m5; the user message m1 is no request.
    assert [r.extra["message_id"] for r in requests] == ["m2", "m3", "m4", "m5"]
    assert [r.place.line for r in requests] == [4, 6, 8, 10]


def test_inclusive_figures_and_no_write_class() -> None:
    m2, m3, m4, m5 = read_all(READER, CHAT)[0]
    # 8,000 sent, none cached; 20 out plus 100 thinking.
    assert m2.tokens == TokenClasses(
        uncached=8000, read=0, written_5m=None, written_1h=None, output=120
    )
    assert m2.extra["thoughts_tokens"] == 100
    # 8,300 sent, 7,900 of them cached: 400 uncached.
    assert m3.tokens == TokenClasses(400, 7900, None, None, 15)
    assert m3.tokens.written is None
    assert m4.tokens == TokenClasses(8200, 0, None, None, 30)
    # No cached field at all: N/A, not 0.
    assert m5.tokens == TokenClasses(500, None, None, None, 5)
    assert m5.tokens.has_cache_figures is False


def test_header_set_lines_and_boundaries() -> None:
    m2, m3, m4, m5 = read_all(READER, CHAT)[0]
    # The last $set gave the file its session id; the header its project.
    assert {r.session for r in (m2, m5)} == {"a1b2c3d4-0000-4000-8000-000000000002"}
    assert m2.project == "9f86d081884c7d65"
    assert (m2.provider, m2.harness, m2.model) == ("gemini", "gemini-cli", "gemini-2.5-pro")
    assert m2.time == datetime(2026, 12, 1, 10, 0, 3, tzinfo=timezone.utc)
    assert (m2.boundary, m3.boundary) == (None, None)
    assert m4.boundary == "rewind; model gemini-2.5-pro → gemini-2.5-flash"
    assert m5.boundary == "resume"
    assert not any(r.sidechain for r in (m2, m3, m4, m5))


def test_a_legacy_document_chat() -> None:
    (request,), problems = read_all(READER, LEGACY)
    assert problems == []
    assert request.place == Place(LEGACY, pointer="/messages/1")
    assert request.session == "legacy-0000-4000-8000-000000000001"
    assert request.tokens == TokenClasses(3000 - 1024, 1024, None, None, 10 + 5)


def test_a_subagent_chat_is_a_sidechain_under_its_parent(tmp_path: Path) -> None:
    lines = CHAT.read_text().splitlines()
    header = {**json.loads(lines[0]), "kind": "subagent", "sessionId": "sub-1"}
    path = tmp_path / "chats" / "parent-session" / "sub-1.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join([json.dumps(header), lines[2]]) + "\n")
    (request,), _ = read_all(READER, path)
    assert request.sidechain is True
    assert request.session == "sub-1"
    assert request.extra["parent_session"] == "parent-session"


def test_telemetry_pairs_each_response_with_its_request_text() -> None:
    requests, problems = read_all(READER, TELEMETRY)
    assert problems == []
    first, second = requests
    assert [r.place.line for r in requests] == [36, 70]
    assert first.session == "t-session-1"
    assert first.tokens == TokenClasses(8000, 0, None, None, 120)
    assert first.status == 200
    assert first.time == datetime(2026, 12, 1, 10, 0, 3, 500000, tzinfo=timezone.utc)
    # A list of contents is not a whole request: kept as text, no body.
    assert first.extra["request_text"].startswith("[")
    assert first.body is None and first.shape is None
    assert second.tokens == TokenClasses(400, 7900, None, None, 15)
    assert second.extra["tool_tokens"] == 12
    assert second.time == datetime(2026, 12, 1, 10, 0, 6, tzinfo=timezone.utc)
    assert second.shape == "gemini"
    assert second.body == {
        "contents": [{"role": "user", "parts": [{"text": "list the files"}]}],
        "systemInstruction": {"parts": [{"text": "You are Gemini CLI."}]},
    }


def test_telemetry_one_object_a_line(tmp_path: Path) -> None:
    text = TELEMETRY.read_text()
    objects, decoder, at = [], json.JSONDecoder(), 0
    while text[at:].strip():
        value, at = decoder.raw_decode(text, len(text) - len(text[at:].lstrip()))
        objects.append(value)
    path = tmp_path / "telemetry.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in objects))
    assert READER.claims(path, path.read_bytes())
    requests, problems = read_all(READER, path)
    assert problems == []
    assert [r.place.line for r in requests] == [3, 5]
    assert [r.tokens.read for r in requests] == [0, 7900]


def test_claims_chats_and_telemetry_only(tmp_path: Path) -> None:
    for path in (CHAT, LEGACY, TELEMETRY):
        assert READER.claims(path, path.read_bytes()), path
    claude = b'{"parentUuid":null,"sessionId":"s","type":"user","message":{}}\n'
    codex = b'{"timestamp":"x","type":"session_meta","payload":{"id":"s"}}\n'
    assert not READER.claims(tmp_path / "a.jsonl", claude)
    assert not READER.claims(tmp_path / "a.jsonl", codex)
    assert not READER.claims(tmp_path / "settings.json", b'{\n  "telemetry": {}\n}\n')
    assert READER.places(tmp_path) == [
        tmp_path / ".gemini" / "tmp",
        tmp_path / ".gemini" / "telemetry.log",
        tmp_path / ".gemini" / "telemetry.jsonl",
    ]


def test_hostile_chat_lines_are_one_problem_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = CHAT.read_text().splitlines()
    good = [lines[0], lines[2], lines[5]]
    requests, problems, path = hostile_lines(READER, tmp_path, "c.jsonl", good, monkeypatch)
    assert_hostile_problems(problems, path, [2, 3, 6])
    assert [r.place.line for r in requests] == [4, 5]


def test_hostile_telemetry_objects_are_one_problem_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = TELEMETRY.read_text()
    response = text[text.index('{\n  "hrTime": [\n    1796119203') :]
    response = response[: response.index("\n}\n") + 3]
    monkeypatch.setattr(base, "MAX_LINE_BYTES", len(response.encode()) + 10)
    path = tmp_path / "telemetry.log"
    huge = '{\n  "attributes": {\n    "pad": "' + "x" * (len(response) * 2) + '"\n  }\n}\n'
    latin = '{\n  "attributes": {\n    "pad": "caf\xe9"\n  }\n}\n'.encode("latin-1")
    path.write_bytes(
        response.encode() + latin + huge.encode() + response.encode() + response.encode()[:40]
    )
    requests, problems = read_all(READER, path)
    span = response.count("\n")
    starts = [span + 1, span + 6, span + 6 + huge.count("\n") + span]
    assert [(p.place.file, p.place.line) for p in problems] == [(path, n) for n in starts]
    assert "not UTF-8" in problems[0].message
    assert problems[1].message.startswith("an object of")
    assert "torn" in problems[2].message
    assert [r.place.line for r in requests] == [1, span + 6 + huge.count("\n")]


def test_an_empty_file_reads_nothing(tmp_path: Path) -> None:
    assert_empty_file_reads_nothing(READER, tmp_path, "chats/session-empty.jsonl")
