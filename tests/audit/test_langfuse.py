"""Langfuse exports: generations only, usage keys apart from one another, in the API's JSON
array and the blob export's JSON lines; a truncated array is one problem."""

from __future__ import annotations

from ctxconf.audit.readers.langfuse import READER
from ctxconf.audit.record import TokenClasses
from tests.audit.helpers import FIXTURES, head, read_all


def test_generations_of_a_json_array() -> None:
    path = FIXTURES / "langfuse" / "generations.json"
    assert READER.claims(path, head(path))
    requests, problems = read_all(READER, path)
    assert problems == []
    openai, other = requests
    assert openai.tokens == TokenClasses(86, 1920, None, None, 300)
    assert (openai.session, openai.cost_usd, openai.place.pointer) == ("lf-s1", 0.0056, "/0")
    # no cache key at all: N/A; no session: the trace
    assert other.tokens == TokenClasses(400, None, None, None, 20)
    assert (other.session, other.cost_usd) == ("tr-2", 0.001)


def test_the_blob_export_s_snake_case_lines() -> None:
    path = FIXTURES / "langfuse" / "observations.jsonl"
    assert READER.claims(path, head(path))
    requests, problems = read_all(READER, path)
    (only,) = requests
    assert only.tokens == TokenClasses(9, 17102, 300, None, 8)
    assert (only.session, only.model, only.cost_usd) == ("lf-s9", "claude-sonnet-4-5", 0.0061)
    assert [(p.place.line, "torn" in p.message) for p in problems] == [(2, True)]


def test_a_truncated_array_is_one_problem() -> None:
    path = FIXTURES / "langfuse" / "not-json.json"
    requests, problems = read_all(READER, path)
    assert requests == []
    assert [(p.place.file, p.message.startswith("not JSON")) for p in problems] == [(path, True)]
