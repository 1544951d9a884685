"""The prefix area: the reference session, the usage shapes of every provider, the case file, its
schema, and the tools (validate, lint, regen, add-case) serving it as they serve `context`."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ctxconf.reference import (
    AREAS,
    OPS_BY_AREA,
    McpServer,
    PrefixConfig,
    PrefixSession,
    Tool,
    UnknownArea,
    Usage,
    normalise_usage,
    run_area_case,
    run_prefix_case,
)
from ctxconf.reference.prefix.checks import step_problems
from ctxconf.reference.prefix.session import PREFIX_OPS
from ctxconf.reference.prefix.usage import PROVIDERS, UsageShapeError
from ctxconf.specdata.paths import bundled_spec_dir, schemas_dir
from ctxconf.spectools.validate import validate_files
from tests.cli import ctxconf
from tests.spec_examples import examples_not_shown

SPEC = bundled_spec_dir()
LOOP: dict[str, Any] = json.loads((SPEC / "loop.json").read_text(encoding="utf-8"))
CASE_FILE = SPEC / "conformance" / "prefix.json"
DOC: dict[str, Any] = json.loads(CASE_FILE.read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = DOC["cases"]
TOOLS = [Tool("read"), Tool("plan_submit", requires="plan")]


def session(**overrides: Any) -> PrefixSession:
    given: dict[str, Any] = {"model": "m", "date": "2026-11-04", "mode": "code", "tools": TOOLS}
    given.update(overrides)
    return PrefixSession(PrefixConfig.from_loop(LOOP), **given)


# --- the reference against the cases ---------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_reference_passes_case(case: dict[str, Any]) -> None:
    assert run_prefix_case(case, LOOP) == case["expect"]
    assert run_area_case("prefix", case, LOOP) == case["expect"]


def test_every_provider_has_a_case_whole_and_streamed() -> None:
    seen = {(step["provider"], step["stream"]) for case in CASES for step in case["steps"]
            if step["op"] == "response"}
    assert seen == {(provider, stream) for provider in PROVIDERS for stream in (False, True)}


def test_the_named_failures_are_named_cases() -> None:
    # The two mistakes the area exists for each fail a case of their own.
    names = {case["name"]: case for case in CASES}
    assert "pfx.system.no-clock" in names["midnight-keeps-the-system-prompt"]["rules"]
    assert "pfx.usage.anthropic" in names["usage-anthropic"]["rules"]


def test_areas_dispatch() -> None:
    assert "prefix" in AREAS
    assert OPS_BY_AREA["prefix"] == PREFIX_OPS
    with pytest.raises(UnknownArea):
        run_area_case("presence", CASES[0], LOOP)


def test_a_prefix_case_starts_with_one_start_step() -> None:
    start = CASES[0]["steps"][0]
    with pytest.raises(ValueError, match="starts with"):
        run_prefix_case({"steps": [{"op": "user", "text": "hi"}]}, LOOP)
    with pytest.raises(ValueError, match="only one start"):
        run_prefix_case({"steps": [start, start]}, LOOP)


# --- the session as a library ----------------------------------------------------------------


def test_requests_carry_one_prompt_and_the_date_as_a_note() -> None:
    s = session(base="You work in the person's project.")
    first = s.user("Fix it.")
    s.set_date("2026-11-05")
    second = s.user("Go on.")
    assert first.system == second.system and first.system_number == second.system_number == 1
    assert first.system.startswith("You work in the person's project.")
    assert "2026" not in first.system
    assert first.tools == second.tools == ("read", "plan_submit")
    assert first.message.endswith("Today's date is 2026-11-04.\n</session-note>\n\nFix it.")
    assert "2026-11-05" in second.message


def test_a_compaction_folds_pending_changes_into_a_new_prompt() -> None:
    s = session(files=[("AGENTS.md", "Use make.\n")])
    s.user("Start.")
    s.edit_file("AGENTS.md", "Use just.\n")
    s.set_mode("review")
    summary_request = s.compact()
    after = s.user("Go on.")
    assert summary_request.system_number == 1
    assert after.system_number == 2
    assert "Use just." in after.system and "Mode: review" in after.system
    assert "Use just." not in after.message and "Today's date" in after.message


def test_a_call_outside_the_offered_tools_is_refused_as_data() -> None:
    s = session()
    s.user("Start.")
    with pytest.raises(ValueError, match="not offered"):
        s.call("browser_open", "…")
    with pytest.raises(ValueError, match="no tool"):
        s.withdraw(["browser_open"])


def test_late_server_joins_at_the_switch() -> None:
    late = McpServer("browser", 9000, ("browser_open",), "Ask first.")
    s = session(mcp=[late])
    assert s.user("Start.").tools == ("read", "plan_submit")
    assert "Ask first." in s.user("Next.").message
    s.switch_model("other")
    request = s.user("Go on.")
    assert request.tools == ("read", "plan_submit", "browser_open")
    assert "# MCP server browser\n\nAsk first." in request.system
    assert "Ask first." not in request.message


def test_responses_are_kept_per_request() -> None:
    s = session()
    s.user("Hi")
    usage = s.response("ollama", {"prompt_eval_count": 11}, stream=False)
    assert usage == Usage(11, None, None, None)
    assert s.usage == (usage,)
    assert s.usage_table() == (
        "request 1: input 11, cache read not reported, cache write not reported, "
        "uncached not reported"
    )


def test_loop_json_texts_change_what_is_sent() -> None:
    loop = copy.deepcopy(LOOP)
    loop["context"]["note"]["date"] = "Date: {date}"
    loop["prefix"]["texts"]["session_note"] = "<note>\n{lines}\n</note>"
    loop["prefix"]["texts"]["tools_separator"] = " | "
    s = PrefixSession(PrefixConfig.from_loop(loop), model="m", date="2026-11-04", mode="code",
                      tools=TOOLS)
    text = s.user("Hi").render(s.config.texts)
    assert text == (
        "system 1\ntools read | plan_submit\nuser\n<note>\nDate: 2026-11-04\n</note>\n\nHi"
    )


def test_mcp_wait_comes_from_loop_json() -> None:
    loop = copy.deepcopy(LOOP)
    loop["context"]["note"]["mcp_wait_ms"] = 10_000
    server = McpServer("docs", 9000, ("docs_search",))
    s = PrefixSession(PrefixConfig.from_loop(loop), model="m", date="2026-11-04", mode="code",
                      tools=TOOLS, mcp=[server])
    assert s.user("Hi").tools == ("read", "plan_submit", "docs_search")


# --- usage shapes ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    name: str
    provider: str
    body: Any
    want: tuple[int | None, int | None, int | None, int | None]  # total, read, write, uncached
    stream: bool = False


SHAPES = [
    Shape("openai-chat", "openai-chat",
          {"usage": {"prompt_tokens": 2006, "prompt_tokens_details": {"cached_tokens": 1920}}},
          (2006, 1920, None, 86)),
    Shape("openai-chat-without-details", "openai-chat", {"usage": {"prompt_tokens": 50}},
          (50, None, None, None)),
    Shape("openai-chat-stream-without-usage", "openai-chat", [{"choices": []}, {"choices": []}],
          (None, None, None, None), stream=True),
    Shape("openai-responses-write", "openai-responses",
          {"usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 4,
                                                                   "cache_write_tokens": 6}}},
          (10, 4, 6, 6)),
    Shape("anthropic-input-excludes-cache", "anthropic",
          {"usage": {"input_tokens": 9, "cache_read_input_tokens": 17102,
                     "cache_creation_input_tokens": 3}},
          (17114, 17102, 3, 12)),
    Shape("anthropic-without-cache-fields", "anthropic", {"usage": {"input_tokens": 9}},
          (None, None, None, None)),
    Shape("anthropic-stream-replaces", "anthropic",
          [{"type": "message_start", "message": {"usage": {"input_tokens": 9,
                                                           "cache_read_input_tokens": 100,
                                                           "cache_creation_input_tokens": 0}}},
           {"type": "message_delta", "usage": {"input_tokens": 9, "cache_read_input_tokens": 100,
                                               "cache_creation_input_tokens": None,
                                               "output_tokens": 5}}],
          (109, 100, 0, 9), stream=True),
    Shape("gemini-missing-cached-is-zero", "gemini", {"usageMetadata": {"promptTokenCount": 40}},
          (40, 0, None, 40)),
    Shape("gemini-without-metadata", "gemini", {"candidates": []}, (None, None, None, None)),
    Shape("llamacpp-prompt-n-excludes-cache-n", "llamacpp",
          {"usage": {"prompt_tokens": 31}, "timings": {"cache_n": 26, "prompt_n": 5}},
          (31, 26, None, 5)),
    Shape("llamacpp-unset-cache-n", "llamacpp", {"timings": {"cache_n": -1, "prompt_n": 5}},
          (None, None, None, None)),
    Shape("llamacpp-without-timings", "llamacpp",
          {"usage": {"prompt_tokens": 7, "prompt_tokens_details": {"cached_tokens": 2}}},
          (7, 2, None, 5)),
    Shape("vllm-null-details", "vllm",
          {"usage": {"prompt_tokens": 1013, "prompt_tokens_details": None}},
          (1013, None, None, None)),
    Shape("ollama-old-without-cached", "ollama", {"prompt_eval_count": 11, "done": True},
          (11, None, None, None)),
    Shape("ollama-cached-zero-is-zero", "ollama",
          {"prompt_eval_count": 11, "prompt_eval_cached_count": 0}, (11, 0, None, 11)),
    Shape("ollama-stream-done", "ollama",
          [{"done": False, "prompt_eval_count": 1}, {"done": True, "prompt_eval_count": 11,
                                                      "prompt_eval_cached_count": 8}],
          (11, 8, None, 3), stream=True),
    Shape("openrouter-write", "openrouter",
          {"usage": {"prompt_tokens": 194, "prompt_tokens_details": {"cached_tokens": 0,
                                                                      "cache_write_tokens": 100}}},
          (194, 0, 100, 194)),
    Shape("deepseek-hit-and-miss", "deepseek",
          {"usage": {"prompt_cache_hit_tokens": 1152, "prompt_cache_miss_tokens": 48}},
          (1200, 1152, None, 48)),
    Shape("mistral-num-cached", "mistral",
          {"usage": {"prompt_tokens": 80, "num_cached_tokens": 64}},
          (80, 64, None, 16)),
    Shape("bedrock-total-less-output", "bedrock",
          {"usage": {"inputTokens": 12, "outputTokens": 40, "totalTokens": 17160,
                     "cacheReadInputTokens": 17108}},
          (17120, 17108, None, 12)),
    Shape("bedrock-stream-metadata", "bedrock",
          [{"messageStart": {"role": "assistant"}},
           {"metadata": {"usage": {"inputTokens": 5, "outputTokens": 2, "totalTokens": 7}}}],
          (5, None, None, None), stream=True),
    Shape("a-bool-is-no-count", "ollama", {"prompt_eval_count": True}, (None, None, None, None)),
]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_usage_shape(shape: Shape) -> None:
    usage = normalise_usage(shape.provider, shape.body, shape.stream)
    assert (usage.input_total, usage.cache_read, usage.cache_write, usage.uncached) == shape.want


def test_canonical_json_is_sorted_and_compact() -> None:
    text = Usage.of(194, 0, None).canonical()
    assert text == '{"cache_read":0,"cache_write":null,"input_total":194,"uncached":194}'
    assert json.loads(text) == Usage.of(194, 0, None).as_dict()


@pytest.mark.parametrize(
    ("provider", "body", "stream"),
    [("nobody", {}, False), ("anthropic", [], False), ("anthropic", {}, True)],
    ids=["unknown-provider", "list-as-body", "object-as-stream"],
)
def test_a_response_of_the_wrong_shape_is_refused(provider: str, body: Any, stream: bool) -> None:
    with pytest.raises(UsageShapeError):
        normalise_usage(provider, body, stream)


# --- schema ----------------------------------------------------------------------------------


def test_schema_steps_are_the_reference_ops() -> None:
    path = schemas_dir() / "areas" / "prefix.schema.json"
    defs = json.loads(path.read_text(encoding="utf-8"))["$defs"]
    assert set(defs["prefix_op"]["enum"]) == PREFIX_OPS
    assert set(defs["provider"]["enum"]) == set(PROVIDERS)
    branches = defs["prefix_step"]["allOf"]
    assert {b["if"]["properties"]["op"]["const"] for b in branches} == PREFIX_OPS
    for branch in branches:
        op = branch["if"]["properties"]["op"]["const"]
        shape = defs[branch["then"]["$ref"].removeprefix("#/$defs/")]
        assert shape["properties"]["op"] == {"const": op}
        assert "additionalProperties" not in shape  # open: the case file closes it
        assert shape["title"].startswith(f"{op} step ")


def test_loop_json_prefix_section_is_what_the_reference_reads() -> None:
    config = PrefixConfig.from_loop(LOOP)
    assert config.mcp_wait_ms == LOOP["context"]["note"]["mcp_wait_ms"]
    assert set(config.texts.names()) == set(LOOP["prefix"]["texts"])
    assert "mcp_wait_ms" not in config.notes.names()


# --- validate --------------------------------------------------------------------------------


def _broken(tmp_path: Path, change: Any) -> list[str]:
    data = copy.deepcopy(DOC)
    change(data)
    path = tmp_path / "conformance" / "prefix.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return [f"{p.pointer}: {p.code}: {p.message}" for p in validate_files([path])]


def _first_response(data: dict[str, Any]) -> dict[str, Any]:
    steps = (step for case in data["cases"] for step in case["steps"])
    return next(step for step in steps if step["op"] == "response")


BROKEN_PREFIX = [
    ("no-start", lambda d: d["cases"][0]["steps"].pop(0) and d["cases"][0]["expect"].pop(0),
     "/cases/0/steps/0/op: prefix-start: the first step is 'user'"),
    ("two-starts", lambda d: (d["cases"][0]["steps"].append(d["cases"][0]["steps"][0]),
                              d["cases"][0]["expect"].append("")),
     "prefix-start: a second start step"),
    ("stream-body-object", lambda d: _first_response(d).update(stream=True),
     "prefix-body: a streamed response's body is the list of its events"),
    ("context-op-in-prefix", lambda d: d["cases"][0]["steps"][1].update(op="read"),
     "schema.enum: 'read' is not one of ['start'"),
    ("unknown-provider", lambda d: _first_response(d).update(provider="acme"),
     "schema.enum: 'acme' is not one of"),
    ("limits-in-prefix", lambda d: d["cases"][0].update(limits={"max_lines": 5}),
     "unknown key 'limits'"),
    ("openai-body-without-session",
     lambda d: _case(d, "side-request-after-a-compaction")["steps"][0].pop("session"),
     "prefix-session: an OpenAI body carries a prompt_cache_key"),
]


def _case(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(case for case in data["cases"] if case["name"] == name)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "change", "says"), BROKEN_PREFIX,
                         ids=[b[0] for b in BROKEN_PREFIX])
def test_validate_refuses_a_broken_prefix_file(tmp_path: Path, name: str, change: Any,
                                               says: str) -> None:
    problems = _broken(tmp_path, change)
    assert len(problems) == 1, problems
    assert says in problems[0]


@pytest.mark.slow
def test_a_prefix_op_in_a_context_file_is_refused(tmp_path: Path) -> None:
    data = json.loads((SPEC / "conformance" / "context.json").read_text(encoding="utf-8"))
    data["cases"][0]["steps"][0] = {"op": "user", "text": "hi"}
    path = tmp_path / "context.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    problems = validate_files([path])
    assert [(p.pointer, p.code) for p in problems] == [("/cases/0/steps/0/op", "schema.enum")]


# --- the spec text ---------------------------------------------------------------------------


def test_every_example_of_prefix_md_is_a_case_output() -> None:
    count, missing = examples_not_shown((SPEC / "prefix.md").read_text(encoding="utf-8"), CASES)
    assert count >= 10
    assert not missing, missing


@pytest.mark.slow
def test_lint_checks_prefix_md_quotes_and_examples(spec: Path) -> None:
    md = spec / "prefix.md"
    text = md.read_text(encoding="utf-8")
    quote, line = "`context.note.mcp_wait_ms` (3000)", "\nThe person switched to review mode.\n"
    assert quote in text and line in text
    text = text.replace(quote, quote.replace("3000", "2000"), 1)
    md.write_text(text.replace(line, line.replace("switched", "went"), 1), encoding="utf-8")
    done = ctxconf("lint", "--spec", spec, expect=1)
    assert "`context.note.mcp_wait_ms` is quoted as (2000) but loop.json has 3000" in done.stdout
    assert "example 'The person went to review mode.' matches no template" in done.stdout


@pytest.mark.slow
def test_lint_finds_a_prefix_rule_without_case_and_an_unrendered_template(spec: Path) -> None:
    md = spec / "prefix.md"
    md.write_text(md.read_text(encoding="utf-8") + "\n### `pfx.extra.rule` Untested\n\nText.\n",
                  encoding="utf-8")
    loop = json.loads((spec / "loop.json").read_text(encoding="utf-8"))
    loop["prefix"]["texts"]["orphan"] = "nobody renders me"
    (spec / "loop.json").write_text(json.dumps(loop, indent=2), encoding="utf-8")
    done = ctxconf("lint", "--spec", spec, expect=1)
    assert "rule pfx.extra.rule has no case" in done.stdout
    assert "template 'orphan' is rendered nowhere" in done.stdout


@pytest.mark.slow
def test_regen_rewrites_prefix_expectations_from_loop_json(spec: Path) -> None:
    loop_path = spec / "loop.json"
    loop_path.write_text(loop_path.read_text(encoding="utf-8").replace(
        '"date": "Today\'s date is {date}."', '"date": "The date is {date}."'), encoding="utf-8")
    checked = ctxconf("regen", "--check", "--spec", spec, expect=1)
    assert "prefix.json: midnight-keeps-the-system-prompt: would change" in checked.stdout
    assert "context.json" not in checked.stdout
    ctxconf("regen", "--spec", spec)
    after = json.loads((spec / "conformance" / "prefix.json").read_text(encoding="utf-8"))
    first = after["cases"][0]["expect"][1]
    assert "The date is 2026-11-04." in first and "Today's date" not in first
    # The expectations follow loop.json; the spec text quoting the old note is still caught.
    checked = ctxconf("check", "--spec", spec, expect=1)
    assert "regen --check  ok" in checked.stdout
    assert "`context.note.date` is quoted as (\"Today's date is {date}.\")" in checked.stdout


@pytest.mark.slow
def test_add_case_to_the_prefix_file(spec: Path, tmp_path: Path) -> None:
    new = tmp_path / "new.yaml"
    new.write_text(
        "name: added-prefix\ndescription: d\nrules: [pfx.note.date]\nsteps:\n"
        "  - {op: start, model: m, date: '2026-11-04', mode: code, tools: [{name: read}]}\n"
        "  - {op: user, text: Hi}\n", encoding="utf-8")
    target = spec / "conformance" / "prefix.json"
    ctxconf("add-case", new, "--to", target, "--spec", spec)
    added = json.loads(target.read_text(encoding="utf-8"))["cases"][-1]
    assert added["expect"] == ["", "system 1\ntools read\nuser\n<session-note>\n"
                                   "Today's date is 2026-11-04.\n</session-note>\n\nHi"]


@pytest.mark.slow
def test_show_prints_structured_fields_as_indented_json() -> None:
    done = ctxconf("show", "usage-bedrock-cache-read")
    assert "step 2: response provider=\"bedrock\" stream=false\n  body:\n    │ {\n" in done.stdout
    assert '    │     "cacheReadInputTokens": 17108,\n' in done.stdout
    assert "body={" not in done.stdout
    start = ctxconf("show", "late-mcp-server").stdout
    assert '  tools:\n    │ [\n    │   {\n    │     "name": "read"\n' in start
    assert "  file AGENTS.md:\n    content:\n      │ Run the tests with `make test`" in start


def test_a_body_is_of_a_request_sent() -> None:
    fresh = session(session="s")
    with pytest.raises(ValueError, match="no request"):
        fresh.body("anthropic")
    with pytest.raises(ValueError, match="side request"):
        fresh.aside_body("anthropic", "A title?")
    fresh.user("Hi")
    with pytest.raises(ValueError, match="no request body"):
        fresh.body("bedrock")
    assert json.loads(fresh.body("openai-chat"))["prompt_cache_key"] == "session-s"
    unnamed = session()
    unnamed.user("Hi")
    assert "prompt_cache_key" not in json.loads(unnamed.body("anthropic"))
    with pytest.raises(ValueError, match="session's id"):
        unnamed.body("openai-responses")


def _texts(body: dict[str, Any]) -> list[str]:
    return [message["content"][0]["text"] for message in body["messages"]]


def test_a_side_request_is_not_kept() -> None:
    s = session(session="s")
    s.user("First.")
    aside = json.loads(s.aside_body("anthropic", "A title?"))
    assert _texts(aside)[1:] == ["A title?"] and _texts(aside)[0].endswith("First.")
    assert "cache_control" in aside["messages"][0]["content"][0]
    assert "cache_control" not in aside["messages"][1]["content"][0]
    s.user("Second.")
    assert _texts(json.loads(s.body("anthropic")))[1:] == ["Second."]


def test_the_marks_follow_loop_json() -> None:
    loop = copy.deepcopy(LOOP)
    loop["prefix"]["cache"].update(max_marks=2, prefix_ttl="5m")
    s = PrefixSession(PrefixConfig.from_loop(loop), model="m", date="2026-11-04", mode="code",
                      tools=TOOLS)
    s.user("Hi")
    body = json.loads(s.body("anthropic"))
    assert "cache_control" not in body["tools"][-1]  # the system prompt's mark covers the tools
    assert body["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "5m"}
    assert body["messages"][-1]["content"][0]["cache_control"]["ttl"] == "5m"


def test_a_call_is_checked_against_the_tools_the_last_request_offered() -> None:
    session = PrefixSession(model="m", date="2026-11-04", mode="code",
                            tools=[Tool("read"), Tool("bash")])
    session.user("Go on.")
    session.withdraw(["bash"])
    session.compact()  # the compaction request still offered bash; the new prompt does not
    assert session.call("bash", "ok") != "ok"  # refused as withdrawn, not an unknown tool
    session.user("Next.")
    with pytest.raises(ValueError, match="last request"):
        session.call("bash", "ok")


# --- the model's answers and their reasoning -------------------------------------------------

_THINKING = {"type": "thinking", "thinking": "Read it.", "signature": "EqQBCgIYAhIM..."}


def _anthropic(*content: dict[str, Any]) -> dict[str, Any]:
    return {"id": "msg_01", "type": "message", "role": "assistant", "content": list(content)}


def _read_call(call: str = "toolu_01") -> dict[str, Any]:
    return {"type": "tool_use", "id": call, "name": "read", "input": {"path": "a.py"}}


def test_an_answer_follows_a_request_of_its_own() -> None:
    fresh = session()
    with pytest.raises(ValueError, match="follows a request"):
        fresh.answer("anthropic", _anthropic({"type": "text", "text": "Hi."}))
    fresh.user("Hi")
    assert fresh.answer("anthropic", _anthropic({"type": "text", "text": "Hi."})) is None
    with pytest.raises(ValueError, match="answered the latest request already"):
        fresh.answer("anthropic", _anthropic({"type": "text", "text": "Again."}))
    fresh.user("Read a.py.")
    with pytest.raises(ValueError, match="1 calls, and 0 results"):
        fresh.answer("anthropic", _anthropic(_THINKING, _read_call()))
    compacted = session()
    compacted.user("Hi")
    compacted.compact()
    with pytest.raises(ValueError, match="follows a request"):
        compacted.answer("anthropic", _anthropic({"type": "text", "text": "Summary."}))


def test_an_answer_goes_back_in_its_own_shape_only() -> None:
    s = session(session="s")
    s.user("Read a.py.")
    request = s.answer("anthropic", _anthropic(_THINKING, _read_call()), ["x = 1\n"])
    assert request is not None and request.render(s.config.texts).endswith("--- read ---\nx = 1\n")
    with pytest.raises(ValueError, match="anthropic's shape cannot be sent in a gemini body"):
        s.body("gemini")
    steps = [
        {"op": "start", "model": "m", "date": "2026-11-04", "mode": "code", "tools": []},
        {"op": "user", "text": "Hi"},
        {"op": "answer", "provider": "anthropic", "body": {}},
        {"op": "request_body", "provider": "gemini"},
        {"op": "compact"},
        {"op": "request_body", "provider": "gemini"},
    ]
    problems = list(step_problems(steps))
    assert [(where, code) for where, _, code in problems] == [
        ("/steps/3/provider", "prefix-answer-provider")
    ]


def test_a_refused_call_is_answered_with_its_refusal() -> None:
    s = session()
    s.user("Read a.py.")
    s.wrap_up()
    s.answer("anthropic", _anthropic(_read_call()), ["x = 1\n"])
    result = json.loads(s.body("anthropic"))["messages"][-1]["content"][-1]
    assert result["content"] == LOOP["prefix"]["texts"]["wrap_up_refused"]


def test_a_side_request_marks_the_newest_message_the_harness_wrote() -> None:
    s = session()
    s.user("Hi")
    s.answer("anthropic", _anthropic(_THINKING, {"type": "text", "text": "Hello."}))
    messages = json.loads(s.aside_body("anthropic", "A title?"))["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert "cache_control" in messages[0]["content"][-1]
    assert all("cache_control" not in block for block in messages[1]["content"])
    assert messages[1]["content"][0] == _THINKING


@pytest.mark.parametrize(
    ("model", "kept"),
    [
        ("claude-opus-4-5", True),
        ("claude-opus-4-20250514", False),
        ("claude-haiku-4-5-20251001", False),
        ("gpt-5-2025-08-07", False),
        ("gpt-5.6", True),
        ("o3-pro", True),
    ],
)
def test_the_last_turn_only_models_are_loop_jsons(model: str, kept: bool) -> None:
    s = session(model=model)
    s.user("Hi")
    s.answer("anthropic", _anthropic(_THINKING, {"type": "text", "text": "Hello."}))
    s.user("Go on.")
    answer = json.loads(s.body("anthropic"))["messages"][1]["content"]
    assert (_THINKING in answer) is kept


def test_a_switch_to_a_last_turn_only_model_drops_earlier_reasoning() -> None:
    s = session(model="claude-opus-4-5")
    s.user("Hi")
    s.answer("anthropic", _anthropic(_THINKING, {"type": "text", "text": "Hello."}))
    s.switch_model("claude-haiku-4-5")
    s.user("Go on.")
    assert json.loads(s.body("anthropic"))["messages"][1]["content"] == [
        {"type": "text", "text": "Hello."}
    ]
