"""Protocol v1: the schemas are valid, the runner's and the reference's messages follow them,
the checks in code agree with the schemas, and the examples in docs/protocol.md are true."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ctxconf.runner.protocol import (
    ProtocolError,
    hello_request,
    parse_hello,
    parse_run_response,
    run_request,
    stop_request,
)
from ctxconf.runner.reference_impl import hello, run
from ctxconf.specdata.paths import bundled_spec_dir, schemas_dir
from ctxconf.specdata.schemas import schema_validator
from ctxconf.userfiles.limits import parse_exact_float
from tests.paths import ROOT

PROTOCOL = schemas_dir() / "protocol"
DOC = ROOT / "docs" / "protocol.md"
CASES: list[dict[str, Any]] = [  # every bundled case, in run order, with its area
    {**case, "area": data["area"]}
    for path in sorted((bundled_spec_dir() / "conformance").glob("*.json"))
    for data in [json.loads(path.read_text(encoding="utf-8"), parse_float=parse_exact_float)]
    for case in data["cases"]
]


def _validator(name: str) -> Draft202012Validator:
    return schema_validator(PROTOCOL / name)


def _errors(name: str, message: object) -> list[str]:
    return [error.message for error in _validator(name).iter_errors(message)]


@pytest.mark.parametrize(
    "path",
    [*sorted(PROTOCOL.glob("*.json")), schemas_dir() / "results.schema.json"],
    ids=lambda p: p.name,
)
def test_schema_is_valid(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_one_schema_per_message() -> None:
    assert sorted(p.name for p in PROTOCOL.glob("*.json")) == [
        "hello-request.json", "hello-response.json", "run-request.json", "run-response.json",
        "stop-request.json",
    ]


def test_hello_and_stop_follow_their_schemas() -> None:
    assert _errors("hello-request.json", hello_request()) == []
    assert _errors("hello-response.json", hello()) == []
    assert _errors("stop-request.json", stop_request()) == []
    parsed = parse_hello(hello())
    assert set(parsed.areas) == {c["area"] for c in CASES}  # every area that has cases
    assert parsed.implementation.name == "ctxconf-reference"


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_run_messages_follow_their_schemas(case: dict[str, Any]) -> None:
    request = run_request(7, case["area"], case)
    assert _errors("run-request.json", request) == []
    assert set(request["case"]) <= {"limits", "steps"}  # never the expected texts
    response = run(request)
    assert _errors("run-response.json", response) == []
    assert parse_run_response(response, 7, len(case["steps"])).outputs == tuple(case["expect"])


def test_the_run_schema_refuses_a_case_that_carries_its_answers() -> None:
    case = CASES[0]
    request = {"cmd": "run", "seq": 0, "area": "context",
               "case": {"steps": case["steps"], "expect": case["expect"]}}
    assert _errors("run-request.json", request)


def test_context_steps_are_checked_by_their_op() -> None:
    read = {"op": "read", "path": "a.txt"}  # no content
    request = run_request(0, "context", {"steps": [read]})
    assert _errors("run-request.json", request)
    request = run_request(0, "context", {"steps": [{**read, "content": "x\n"}]})
    assert _errors("run-request.json", request) == []
    # Each area's steps are held to that area's shapes: a context step is no prefix step.
    assert _errors("run-request.json", {**request, "area": "prefix"})


def test_unknown_fields_are_allowed_everywhere() -> None:
    assert _errors("hello-request.json", {**hello_request(), "client": "x"}) == []
    assert _errors("hello-response.json", {**hello(), "homepage": "https://example.org"}) == []
    response = {"seq": 1, "outputs": ["a"], "took_ms": 3}
    assert _errors("run-response.json", response) == []
    assert parse_run_response(response, 1, 1).outputs == ("a",)


# Responses to a one-step request with seq 1: what the code says, and that the schema agrees.
BAD_RESPONSES = [
    ([1], "not a protocol message: the response is an array", False),
    ({"outputs": ["a"]}, 'it has no "seq"', False),
    ({"seq": 2, "outputs": ["a"]}, "wrong seq: the response says 2, the request 1", True),
    ({"seq": 1}, 'found none', False),
    ({"seq": 1, "outputs": ["a"], "error": "x"}, 'found "outputs" and "error"', False),
    ({"seq": 1, "outputs": "a"}, '"outputs" must be an array of strings', False),
    ({"seq": 1, "outputs": [1]}, 'item 0 is a number', False),
    ({"seq": 1, "outputs": []}, "too few outputs: expected 1 (one per step), got 0", True),
    ({"seq": 1, "outputs": ["a", "b"]}, "too many outputs: expected 1 (one per step), got 2", True),
    ({"seq": 1, "error": 5}, '"error" must be a string, not a number', False),
]


@pytest.mark.parametrize(
    ("response", "message", "schema_allows"),
    BAD_RESPONSES,
    ids=["array", "no-seq", "wrong-seq", "no-answer", "two-answers", "outputs-string",
         "output-number", "too-few", "too-many", "error-number"],
)
def test_bad_run_responses(response: object, message: str, schema_allows: bool) -> None:
    with pytest.raises(ProtocolError) as raised:
        parse_run_response(response, 1, 1)
    assert message in raised.value.message
    # The schema sees one message alone: a wrong seq or count is only wrong against its request.
    assert (_errors("run-response.json", response) == []) == schema_allows


@pytest.mark.parametrize(
    ("response", "kind", "message"),
    [
        ({"seq": 1, "error": "no multiedit"}, "error", "no multiedit"),
        ({"seq": 1, "skipped": "not here"}, "skipped", "not here"),
    ],
    ids=["error", "skipped"],
)
def test_error_and_skipped_answers(response: dict[str, Any], kind: str, message: str) -> None:
    assert _errors("run-response.json", response) == []
    reply = parse_run_response(response, 1, 3)
    assert (reply.kind, reply.message) == (kind, message)


@pytest.mark.parametrize(
    ("response", "message"),
    [
        ("hi", "the hello response is a string"),
        ({**hello(), "protocol": 2}, '"protocol" is 2, the runner speaks 1'),
        ({**hello(), "implementation": "me"}, '"implementation" must be an object'),
        ({**hello(), "implementation": {"name": "x", "version": "1"}},
         '"implementation.language" must be a non-empty string'),
        ({**hello(), "areas": "context"}, '"areas" must be an array'),
        # A boolean is no version, though Python counts True as 1; nor is text or a fraction.
        ({**hello(), "protocol": True}, '"protocol" is true, not a version: a version is an'),
        ({**hello(), "protocol": "1"}, '"protocol" is "1", not a version'),
        ({**hello(), "protocol": 1.5}, '"protocol" is 1.5, not a version'),
        ({**hello(), "protocol": None}, '"protocol" is null, not a version'),
    ],
    ids=[
        "not-object", "protocol", "implementation", "language", "areas", "protocol-true",
        "protocol-text", "protocol-fraction", "protocol-missing",
    ],
)
def test_bad_hello_responses(response: object, message: str) -> None:
    with pytest.raises(ProtocolError, match=re.escape(message)):
        parse_hello(response)
    assert _errors("hello-response.json", response)


def test_a_protocol_written_1_0_is_version_1_as_json_schema_counts_it() -> None:
    response = {**hello(), "protocol": 1.0}
    assert parse_hello(response).areas == tuple(hello()["areas"])
    assert not _errors("hello-response.json", response)


# -- the walkthrough's examples --------------------------------------------------------------


def _doc_messages() -> list[dict[str, Any]]:
    text = DOC.read_text(encoding="utf-8")
    messages: list[dict[str, Any]] = []
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        decoder = json.JSONDecoder()
        position = 0
        block = block.strip()
        while position < len(block):
            value, end = decoder.raw_decode(block, position)
            messages.append(value)
            position = end
            while position < len(block) and block[position].isspace():
                position += 1
    return messages


def _schema_for(message: dict[str, Any]) -> str:
    if "cmd" in message:
        return f"{message['cmd']}-request.json"
    return "hello-response.json" if "protocol" in message else "run-response.json"


def test_doc_examples_follow_the_schemas() -> None:
    messages = _doc_messages()
    assert len(messages) >= 7
    for message in messages:
        assert _errors(_schema_for(message), message) == [], message


def test_doc_run_example_is_what_the_reference_answers() -> None:
    messages = _doc_messages()
    request = next(m for m in messages if m.get("cmd") == "run")
    answer = next(m for m in messages if "outputs" in m)
    assert run(request) == answer
