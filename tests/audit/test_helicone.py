"""Helicone rows: the kept answer's usage where there is one, Helicone's columns otherwise."""

from __future__ import annotations

import json
from pathlib import Path

from ctxconf.audit.readers.helicone import READER
from ctxconf.audit.record import TokenClasses
from tests.audit.helpers import FIXTURES, head, read_all

ROWS = FIXTURES / "helicone" / "requests.jsonl"


def test_rows_are_requests() -> None:
    assert READER.claims(ROWS, head(ROWS))
    requests, problems = read_all(READER, ROWS)
    answered, columns = requests
    assert answered.tokens == TokenClasses(9, 17102, 300, None, 8)
    assert (answered.session, answered.shape, answered.status) == (
        "hc-s1",
        "anthropic",
        200,
    )
    assert answered.body is not None and answered.body["max_tokens"] == 100
    # OpenAI's prompt_tokens holds the 1920 read
    assert columns.tokens == TokenClasses(86, 1920, 0, None, 300)
    assert (columns.session, columns.provider, columns.cost_usd) == (
        "requests.jsonl",
        "openai",
        0.0056,
    )
    assert [(p.place.file, p.place.line, "torn" in p.message) for p in problems] == [
        (ROWS, 3, True)
    ]


def test_the_api_s_wrapped_array_is_read_too(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines()[:2]]
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"data": rows, "error": None}, indent=2), encoding="utf-8")
    requests, problems = read_all(READER, path)
    assert problems == []
    assert [(r.request_id, r.place.pointer) for r in requests] == [
        ("h-1", "/data/0"),
        ("h-2", "/data/1"),
    ]
