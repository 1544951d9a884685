"""opencode and Kilo: the SQLite store (built here from fixtures/opencode/messages.json) and
the JSON files of older builds; a locked store, a file that is not SQLite and a store
without opencode's tables are one problem each."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ctxconf.audit.readers.opencode import READER
from ctxconf.audit.record import TokenClasses
from tests.audit.helpers import FIXTURES, head, read_all


def _store(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = json.loads((FIXTURES / "opencode" / "messages.json").read_text(encoding="utf-8"))
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT)")
        db.execute("CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT)")
        db.execute("CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, data TEXT)")
        for row in rows:
            data = row["data"] if isinstance(row["data"], str) else json.dumps(row["data"])
            db.execute("INSERT INTO message VALUES (?, ?, ?)", (row["id"], row["session_id"], data))
    db.close()
    return path


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return _store(tmp_path / ".local" / "share" / "opencode" / "opencode.db")


def test_each_assistant_message_is_a_request_with_opencode_s_own_buckets(store: Path) -> None:
    requests, problems = read_all(READER, store)
    assert [r.request_id for r in requests] == ["msg_02", "msg_04"]
    first, compaction = requests
    # input excludes the cache; output is output + reasoning (40 + 10)
    assert first.tokens == TokenClasses(120, 3000, 500, None, 50)
    assert first.tokens.total_input == 120 + 3000 + 500
    assert (first.session, first.model, first.provider) == (
        "ses_A",
        "claude-sonnet-4-5",
        "anthropic",
    )
    assert (first.harness, first.project, first.cost_usd) == ("opencode", "/home/u/project", 0.0123)
    assert first.time == datetime(2025, 11, 24, 16, 0, 1, tzinfo=timezone.utc)
    # a summary message is a compaction's request; opencode's cost 0 is no figure
    assert (compaction.boundary, compaction.cost_usd) == ("compaction", None)
    assert compaction.tokens == TokenClasses(6, 0, 3620, None, 900)
    assert len(problems) == 1
    assert str(problems[0]).startswith(f"{store} at message msg_03: data not JSON")


def test_kilo_s_store_names_its_harness(tmp_path: Path) -> None:
    store = _store(tmp_path / ".local" / "share" / "kilo" / "opencode.db")
    assert READER.claims(store, head(store))
    requests, _ = read_all(READER, store)
    assert {r.harness for r in requests} == {"kilo"}


def test_the_json_files_of_older_builds_are_read() -> None:
    path = FIXTURES / "opencode" / "storage" / "message" / "ses_legacy" / "msg_legacy.json"
    assert READER.claims(path, head(path))
    requests, problems = read_all(READER, path)
    assert problems == []
    (only,) = requests
    assert (only.session, only.model, only.cost_usd) == ("ses_legacy", "gpt-5", 0.002)
    assert only.tokens == TokenClasses(700, 1200, 0, None, 25)


@pytest.fixture
def locked(store: Path) -> Iterator[Path]:
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        yield store
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_locked_store_is_one_problem(locked: Path) -> None:
    requests, problems = read_all(READER, locked)
    assert requests == []
    assert len(problems) == 1
    assert problems[0].place.file == locked
    assert "locked" in problems[0].message


def test_a_file_that_is_not_sqlite_is_one_problem(tmp_path: Path) -> None:
    path = tmp_path / "opencode" / "opencode.db"
    path.parent.mkdir()
    path.write_bytes(b"this is not a database at all" * 100)
    assert READER.claims(path, head(path))
    requests, problems = read_all(READER, path)
    assert requests == []
    assert [(p.place.file, "not a SQLite database" in p.message) for p in problems] == [
        (path, True)
    ]


def test_a_store_without_opencode_s_tables_is_one_problem(tmp_path: Path) -> None:
    path = tmp_path / "opencode" / "opencode.db"
    path.parent.mkdir()
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE other (x)")
    db.close()
    requests, problems = read_all(READER, path)
    assert requests == []
    assert [(p.place.file, "not an opencode database" in p.message) for p in problems] == [
        (path, True)
    ]
