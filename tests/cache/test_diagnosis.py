"""Every kind of cache breaker, each in a session as a harness sends it beside its clean twin:
the breaking request's figures and its named cause (kind, rule, unit, byte, bytes around it)
asserted exactly, the twin's figures and no cause.

Sizes (bodies.py): the tools, `read` 117 bytes (30 tokens) and `bash` 122 (31): 61 tokens; the
system block 4,096 bytes (1,024 tokens: 25 bytes of JSON, a text of 4,069 characters of which
two newlines are escaped as two bytes each); questions and answers 16 tokens. Tools and system:
1,085 tokens, marked at the system block; the last question marked, as Claude Code marks it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ctxconf.cache import ANCHORS

from .bodies import anthropic_tool, assistant, block, claude, text, tool_result, tool_use, user
from .helpers import audited, cause, figures, kinds

DAY1, DAY2 = "Fri Jan 15 2027", "Sat Jan 16 2027"


def schema(key: str) -> dict[str, Any]:
    return {"type": "object", "properties": {key: {"type": "string"}}}


READ = anthropic_tool("read", "Read a file.", schema("path"))
BASH = anthropic_tool("bash", "Run a command.", schema("command"))


def system(date: str = DAY1, mode: str = "code", gap: str = "\n") -> str:
    head = f"Mode: {mode}.{gap}Today's date: {date}.\n"
    return head + text(4069 - 43, "rules")


def request(
    messages: list[dict[str, Any]],
    prompt: str | None = None,
    tools: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return claude(
        [block(prompt or system(), marked=True)],
        messages,
        tools=[READ, BASH] if tools is None else tools,
    )


def q(n: int, marked: bool = False, body: str | None = None) -> dict[str, Any]:
    return user(block(body or text(24, f"q{n}"), marked=marked))


def a(n: int) -> dict[str, Any]:
    return assistant(block(text(19, f"a{n}")))


def first(marked: bool = True) -> dict[str, Any]:
    return request([q(0, marked)])  # 1,085 + 16 = 1,101 tokens


def second(**changes: Any) -> dict[str, Any]:
    return request([q(0), a(0), q(1, marked=True)], **changes)  # 1,133 tokens


def run(later: dict[str, Any], earlier: dict[str, Any] | None = None) -> Any:
    return audited("anthropic", "anthropic", [(0, earlier or first()), (40, later)])


def test_the_clean_twin_reads_everything_it_shares_and_names_no_cause() -> None:
    clean = run(second())
    assert figures(clean.outcomes) == [(1101, 0, 1101, 0), (1133, 1101, 32, 0)]
    assert clean.diagnoses == (None, None)


def test_a_date_in_the_system_prompt() -> None:
    # opencode's `Today's date:` at midnight: the system block differs, nothing before it is
    # marked, so all 1,133 tokens are written again.
    broken = run(second(prompt=system(date=DAY2)))
    assert figures(broken.outcomes)[1] == (1133, 0, 1133, 0)
    found = cause(broken, 1)
    assert (found.kind, found.anchor, found.unit, found.byte) == (
        "system-date",
        "pfx.system.no-clock",
        "system.0",
        36,  # {"text":"Mode: code.\nToday's date:  — 9 + 13 + 14 bytes
    )
    assert found.detail == "the system prompt holds a date or time"
    assert found.diff is not None
    assert found.diff.lines() == [
        '- {"text":"Mode: code.\\nToday\'s date: Fri Jan 15 2027.\\nrules rules rules rule…',
        '+ {"text":"Mode: code.\\nToday\'s date: Sat Jan 16 2027.\\nrules rules rules rule…',
        "  " + " " * 36 + "^",
    ]


def test_white_space_in_the_system_prompt() -> None:
    # A blank line more: 2 bytes more, 4,098 bytes, 1,025 tokens; the first difference follows
    # {"text":"Mode: code.\n (22 bytes).
    broken = run(second(prompt=system(gap="\n\n")))
    assert figures(broken.outcomes)[1] == (1134, 0, 1134, 0)
    found = cause(broken, 1)
    assert (found.kind, found.anchor, found.unit, found.byte) == (
        "system-whitespace",
        "pfx.system.once",
        "system.0",
        22,
    )


def test_other_text_in_the_system_prompt() -> None:
    # The prompt made again for another mode (the spec's way is a note on the next message).
    broken = run(second(prompt=system(mode="plan")))
    assert figures(broken.outcomes)[1] == (1133, 0, 1133, 0)
    found = cause(broken, 1)
    assert (found.kind, found.anchor, found.detail, found.byte) == (
        "system-text",
        "pfx.system.once",
        "the system prompt's text changed",
        15,  # {"text":"Mode:  and then c against p
    )


SEARCH = anthropic_tool("mcp__docs__search", "Search the docs.", schema("query"))


@pytest.mark.parametrize(
    ("tools", "tokens", "kind", "detail", "unit", "byte"),
    [
        # An MCP server connecting late adds its tool (135 bytes, 34 tokens) at the end.
        ([READ, BASH, SEARCH], 1167, "tools-added", "tool added: mcp__docs__search", "tools.2", 2),
        # One going away takes its tool with it: 31 tokens fewer.
        ([READ], 1102, "tools-removed", "tool removed: bash", "system.0", 2),
        # The same tools in another order (an MCP reconnect's list_tools).
        ([BASH, READ], 1133, "tools-reordered", "tools reordered: bash, read", "tools.0", 17),
        # A description changed (one byte longer: still 30 tokens); it differs after "Read.
        (
            [anthropic_tool("read", "Reads a file.", schema("path")), BASH],
            1133,
            "tool-description",
            "tool read: description changed",
            "tools.0",
            20,
        ),
        # A parameter renamed in the schema, after {"description":"Read a file.","input_schema":
        # {"type":"object","properties":{"  (45 + 32 bytes).
        (
            [anthropic_tool("read", "Read a file.", schema("file")), BASH],
            1133,
            "tool-schema",
            "tool read: schema changed",
            "tools.0",
            77,
        ),
    ],
)
def test_a_changed_tool_list(
    tools: list[dict[str, Any]], tokens: int, kind: str, detail: str, unit: str, byte: int
) -> None:
    broken = run(second(tools=tools))
    # The tools come first and none is marked: nothing is read.
    assert figures(broken.outcomes)[1] == (tokens, 0, tokens, 0)
    found = cause(broken, 1)
    assert (found.kind, found.anchor, found.detail, found.unit, found.byte) == (
        kind,
        "pfx.tools.fixed",
        detail,
        unit,
        byte,
    )


def _call(call_id: str = "toolu_01", arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    # 20 + 46 + 8 + 27 + 4 = 105 bytes, 27 tokens, with {"path":"A.txt","limit":10}
    return assistant(tool_use(call_id, "read", arguments or {"path": "A.txt", "limit": 10}))


def _result(
    call_id: str = "toolu_01", output: str = "one\n", marked: bool = False
) -> dict[str, Any]:
    # 15 + 52 + 5 + 8 = 80 bytes, 20 tokens ("one\n" is 5 bytes as JSON)
    return user(tool_result(call_id, output, marked=marked))


def _turn(**changes: Any) -> dict[str, Any]:
    """The session after a tool call: request 0 is q0, the call and its result (1,148 tokens),
    request 1 goes on with an answer and a question (1,180)."""
    call = _call(changes.get("call_id", "toolu_01"), changes.get("arguments"))
    result = _result(changes.get("call_id", "toolu_01"), changes.get("output", "one\n"))
    return request([q(0), call, result, a(1), q(2, marked=True)])


TOOL_TURN = request([q(0), _call(), _result(marked=True)])


def test_the_clean_tool_turn() -> None:
    clean = run(_turn(), TOOL_TURN)
    assert figures(clean.outcomes) == [(1148, 0, 1148, 0), (1180, 1148, 32, 0)]
    assert clean.diagnoses == (None, None)


@pytest.mark.parametrize(
    ("changes", "detail", "unit", "byte"),
    [
        # A result reloaded without its final newline; differs after {"role":"user"}{"content":"one
        (
            {"output": "one"},
            "message 2 (user) was rewritten: white space",
            "messages.2.content.0",
            30,
        ),
        # The call's arguments written in another key order; after {"role":"assistant"}
        # {"id":"toolu_01","input":{"  (20 + 27 bytes).
        (
            {"arguments": {"limit": 10, "path": "A.txt"}},
            "message 1 (assistant) was rewritten: key order",
            "messages.1.content.0",
            47,
        ),
        # A call id made again at every request; after {"role":"assistant"}{"id":"toolu_
        (
            {"call_id": "toolu_99"},
            "message 1 (assistant) was rewritten: a tool call id",
            "messages.1.content.0",
            33,
        ),
    ],
)
def test_an_earlier_message_rewritten(
    changes: dict[str, Any], detail: str, unit: str, byte: int
) -> None:
    broken = run(_turn(**changes), TOOL_TURN)
    # Only the entry at the system block is left: 1,085 read, the 95 after it written.
    assert figures(broken.outcomes)[1] == (1180, 1085, 95, 0)
    found = cause(broken, 1)
    assert (found.kind, found.anchor, found.detail, found.unit, found.byte) == (
        "message-rewritten",
        "hist.persist.append-only",
        detail,
        unit,
        byte,
    )


def test_a_time_stamped_again_on_an_earlier_message() -> None:
    # The message's time written anew at every request: [Fri 23:59:40] then [Sat 00:00:30],
    # 15 characters before a 9-character question (24 in all, 16 tokens).
    def stamped(clock: str, marked: bool) -> dict[str, Any]:
        return q(0, marked, body=f"[{clock}] " + text(9, "q0"))

    earlier = request([stamped("Fri 23:59:40", True)])
    clean = run(request([stamped("Fri 23:59:40", False), a(0), q(1, marked=True)]), earlier)
    assert figures(clean.outcomes)[1] == (1133, 1101, 32, 0)
    broken = run(request([stamped("Sat 00:00:30", False), a(0), q(1, marked=True)]), earlier)
    assert figures(broken.outcomes)[1] == (1133, 1085, 48, 0)
    found = cause(broken, 1)
    assert (found.detail, found.unit, found.byte) == (
        "message 0 (user) was rewritten: a date or time",
        "messages.0.content.0",
        25,  # {"role":"user"}{"text":"[  (15 + 9 + 1 bytes)
    )


def test_a_reminder_dropped_from_the_message_it_rode_on() -> None:
    # The reminder block (25 + 44 = 69 bytes, 18 tokens) is sent on the latest question, and
    # left out of it once it is no longer the latest.
    reminder = block("<system-reminder>Be brief.</system-reminder>")
    earlier = request(
        [user(block(text(24, "q0")), {**reminder, "cache_control": {"type": "ephemeral"}})]
    )
    kept = run(request([user(block(text(24, "q0")), reminder), a(0), q(1, marked=True)]), earlier)
    assert figures(kept.outcomes) == [(1119, 0, 1119, 0), (1151, 1119, 32, 0)]
    broken = run(second(), earlier)
    assert figures(broken.outcomes)[1] == (1133, 1085, 48, 0)
    found = cause(broken, 1)
    assert (found.kind, found.detail, found.unit, found.byte) == (
        "message-rewritten",
        "message 0 (user) was rewritten: its last blocks dropped",
        "messages.1.content.0",
        2,
    )


def test_an_earlier_message_removed_or_one_inserted() -> None:
    earlier = request([q(0), a(0), q(1, marked=True)])  # 1,133
    removed = run(request([q(0), q(1), a(1), q(2, marked=True)]), earlier)
    assert figures(removed.outcomes)[1] == (1149, 1085, 64, 0)
    found = cause(removed, 1)
    assert (found.kind, found.anchor, found.detail, found.unit, found.byte) == (
        "message-removed",
        "hist.persist.append-only",
        "message 1 (assistant) was removed",
        "messages.1.content.0",
        9,  # {"role":"  and then assistant against user
    )
    inserted = run(request([q(0), q(9), a(0), q(1), a(1), q(2, marked=True)]), earlier)
    assert figures(inserted.outcomes)[1] == (1181, 1085, 96, 0)
    assert cause(inserted, 1).detail == (
        "a message (user) was inserted before message 1 (assistant)"
    )
    appended = run(request([q(0), a(0), q(1), a(1), q(2, marked=True)]), earlier)
    assert figures(appended.outcomes)[1] == (1165, 1133, 32, 0)
    assert appended.diagnoses == (None, None)


def test_a_fifth_breakpoint_and_a_late_one_hour_mark_are_named() -> None:
    # A proxy marks every tool and the system block besides the harness's own mark: 5.
    marked_tools = [
        {**READ, "cache_control": {"type": "ephemeral"}},
        {**BASH, "cache_control": {"type": "ephemeral"}},
    ]
    proxy = request([q(0), a(0), q(1, marked=True)], tools=marked_tools)
    proxy["messages"][0]["content"][0]["cache_control"] = {"type": "ephemeral"}
    refused = run(proxy)
    assert figures(refused.outcomes)[1] == "breakpoint-limit"
    found = cause(refused, 1)
    assert (found.kind, found.anchor, found.unit, found.detail) == (
        "breakpoint-limit",
        "pfx.cache.limit",
        "messages.2.content.0",
        "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    )
    late = request([q(0), a(0), user(block(text(24, "q1"), ttl="1h"))])
    ordered = cause(run(late), 1)
    assert (ordered.kind, ordered.anchor, ordered.unit) == (
        "ttl-order",
        "pfx.cache.lifetimes",
        "messages.2.content.0",
    )


def _anchors() -> set[str]:
    spec = Path(__file__).resolve().parents[2] / "spec"
    found: set[str] = set()
    for page in spec.glob("*.md"):
        found |= set(re.findall(r"^### `([a-z.-]+)`", page.read_text(encoding="utf-8"), re.M))
    return found


def test_every_named_rule_is_a_rule_of_the_spec() -> None:
    named = {anchor for anchor in ANCHORS.values() if anchor is not None}
    assert named <= _anchors()
    assert named == {
        "pfx.system.no-clock",
        "pfx.system.once",
        "pfx.system.switch",
        "pfx.tools.fixed",
        "pfx.cache.marks",
        "pfx.cache.limit",
        "pfx.cache.lifetimes",
        "pfx.cache.params",
        "hist.persist.append-only",
        "pfx.reasoning.kept",
        "pfx.reasoning.anthropic",
    }


def test_a_request_is_compared_with_the_one_it_goes_on_from() -> None:
    # Request 2 rewrites request 0's answer. Request 1, sent after request 0 with the first
    # question alone, is wholly a prefix of request 2 and as many whole units long as what
    # request 2 shares with request 0, but request 2 shares more with request 0 (the rewritten
    # answer's first bytes): it is request 0 it goes on from, and the answer was rewritten.
    timed = [
        (0, second()),
        (10, first()),
        (20, request([q(0), assistant(block(text(19, "b0"))), q(1), a(1), q(2, marked=True)])),
    ]
    result = audited("anthropic", "anthropic", timed)
    diagnosis = result.diagnoses[2]
    assert diagnosis is not None and diagnosis.against == 0
    assert cause(result, 2).detail == "message 1 (assistant) was rewritten: text"


def test_a_side_request_is_not_what_the_loop_rewrote() -> None:
    # A memory subagent sends the conversation under the same prompt with a prompt of its own
    # last; the loop's next request shares more with it than with the loop's own last request,
    # but it branched from it: the loop's request is compared with its own and loses nothing.
    side = request([q(0), a(0), user(block("Update the memory files.", marked=True))])
    timed = [(0, first()), (5, side), (10, second())]
    result = audited("anthropic", "anthropic", timed)
    assert figures(result.outcomes)[2] == (1133, 1101, 32, 0)
    assert result.diagnoses[2] is None


def test_a_newest_message_sent_again_edited_is_no_rewrite() -> None:
    # The person edits the question the model never answered and sends it again: the history
    # before it is kept, so no message was rewritten. Only the system block's entry can be read
    # (the old question's entry is not in it): the 32 tokens of q0 and a0 after it were never
    # marked, which is the one cause.
    edited = request([q(0), a(0), q(7, marked=True)])
    result = audited("anthropic", "anthropic", [(0, second()), (10, edited)])
    assert figures(result.outcomes)[1] == (1133, 1085, 48, 0)
    assert kinds(result) == [[], ["breakpoint-missing"]]
