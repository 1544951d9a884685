"""Every cause the cache diagnosis names, made by a scripted client of the running mock (a
harness's requests, one fault each) beside its clean twin: the usage the mock answered with and
the figures the results keep, per request, and the cause the results name (kind, rule, unit).

The expected figures are worked out here from the documented estimate (docs/probe.md, "The
token estimate"): a unit is a tool, a system block or a message's block (its first carrying
the message's other fields), its bytes canonical JSON without cache marks, its tokens those
bytes over four rounded up. Under Anthropic's rules a request reads the longest prefix ending
at an entry an earlier request wrote, and writes the prefix up to its last breakpoint, both
from 1,024 tokens for this model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .scripted_client import Played, play

MODEL = "claude-sonnet-4-5"
OTHER_MODEL = "claude-opus-4-1"
DAY1, DAY2 = "Fri Jan 15 2027", "Sat Jan 16 2027"
MARK = {"type": "ephemeral"}


# --- the harness's requests ------------------------------------------------------------------


def tool(name: str, description: str, key: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {key: {"type": "string"}}}
    return {"name": name, "description": description, "input_schema": schema}


READ = tool("read", "Read a file.", "path")
BASH = tool("bash", "Run a command.", "command")
SEARCH = tool("mcp__docs__search", "Search the docs.", "query")
TOOLS = [READ, BASH]


def prompt(date: str = DAY1, mode: str = "code", gap: str = "\n", rules: int = 240) -> str:
    return f"Mode: {mode}.{gap}Today's date: {date}.\n" + "Keep to the task. " * rules


def block(text: str, marked: bool = False) -> dict[str, Any]:
    return {"type": "text", "text": text, **({"cache_control": MARK} if marked else {})}


def user(text: str, marked: bool = False) -> dict[str, Any]:
    return {"role": "user", "content": [block(text, marked)]}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [block(text)]}


def request(
    messages: list[dict[str, Any]],
    system: str | None = None,
    tools: list[dict[str, Any]] | None = None,
    system_marked: bool = True,
    **fields: Any,
) -> dict[str, Any]:
    return {
        "model": MODEL,
        "max_tokens": 64,
        "tools": TOOLS if tools is None else tools,
        "system": [block(prompt() if system is None else system, system_marked)],
        "messages": messages,
        **fields,
    }


Q0, A0, Q1 = "Which files are here?", "A.txt and B.txt.", "What does A.txt say?"


def first(marked: bool = True, **changes: Any) -> dict[str, Any]:
    return request([user(Q0, marked)], system_marked=marked, **changes)


def second(q0: str = Q0, marked: bool = True, **changes: Any) -> dict[str, Any]:
    messages = [user(q0), assistant(A0), user(Q1, marked)]
    return request(messages, system_marked=marked, **changes)


# --- the documented estimate -------------------------------------------------------------------


def _unmarked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    return [_unmarked(v) for v in value] if isinstance(value, list) else value


def _bytes(value: Any) -> int:
    text = json.dumps(_unmarked(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return len(text.encode("utf-8"))


def units(body: dict[str, Any]) -> list[tuple[str, int]]:
    """Each unit's path and tokens, in the order a provider hashes them."""
    found = [(f"tools.{n}", _bytes(t)) for n, t in enumerate(body["tools"])]
    found += [(f"system.{n}", _bytes(b)) for n, b in enumerate(body["system"])]
    for m, message in enumerate(body["messages"]):
        header = _bytes({k: v for k, v in message.items() if k != "content"})
        for n, part in enumerate(message["content"]):
            found.append((f"messages.{m}.content.{n}", _bytes(part) + (header if n == 0 else 0)))
    return [(path, -(-size // 4)) for path, size in found]


def upto(body: dict[str, Any], path: str) -> int:
    """The tokens of the prefix ending with unit `path`."""
    paths = [p for p, _ in units(body)]
    return sum(tokens for _, tokens in units(body)[: paths.index(path) + 1])


def total(body: dict[str, Any]) -> int:
    return sum(tokens for _, tokens in units(body))


def answered(played: Played) -> list[tuple[int, int, int] | int]:
    """(read, written, neither) per request as the mock's answers say it, or the status of a
    refusal; the results' own figures must say the same."""
    out: list[tuple[int, int, int] | int] = []
    for answer, row in zip(played.answers, played.rows, strict=True):
        if answer.status != 200:
            assert row.figures is None
            out.append(answer.status)
            continue
        usage = answer.body["usage"]
        said = (
            usage["cache_read_input_tokens"],
            usage["cache_creation_input_tokens"],
            usage["input_tokens"],
        )
        assert row.figures is not None
        kept = row.figures
        assert said == (kept.cache_read, kept.cache_write, kept.neither)
        out.append(said)
    return out


def causes(played: Played, index: int) -> list[tuple[str, str | None, str | None]]:
    diagnosis = played.rows[index].diagnosis
    return [] if diagnosis is None else [(c.kind, c.anchor, c.unit) for c in diagnosis.causes]


def details(played: Played, index: int) -> list[str]:
    diagnosis = played.rows[index].diagnosis
    return [] if diagnosis is None else [c.detail for c in diagnosis.causes]


def split(body: dict[str, Any], read: int) -> tuple[int, int, int]:
    """A request that reads `read` and writes the rest: (read, written, neither)."""
    return read, total(body) - read, 0


FRESH = lambda body: split(body, 0)  # noqa: E731  (reads nothing, writes all)


def on_from_first(body: dict[str, Any]) -> tuple[int, int, int]:
    """Reads what the first request wrote (its whole prompt), writes the rest."""
    return split(body, total(first()))


def on_from_system(body: dict[str, Any]) -> tuple[int, int, int]:
    """Reads only the entry at the system block (the tools and system kept), writes the rest."""
    return split(body, upto(body, "system.0"))


def nothing(body: dict[str, Any]) -> tuple[int, int, int]:
    """Reads and writes nothing: every token is processed afresh."""
    return 0, 0, total(body)


def long_session(mark_at: int | None) -> dict[str, Any]:
    """The first question, then 24 more messages: a lookback of 20 positions from the last
    does not reach the first; a mark on message `mark_at` bridges the gap."""
    messages = [user(Q0)]
    for n in range(1, 25):
        text = f"Step {n} of the work, said in a few words."
        messages.append(assistant(text) if n % 2 else user(text, marked=n in (24, mark_at)))
    return request(messages)


def five_marks(marked_tools: int) -> dict[str, Any]:
    tools = [
        {**t, "cache_control": MARK} if n >= 2 - marked_tools else t for n, t in enumerate(TOOLS)
    ]
    body = second(tools=tools)
    body["messages"][0]["content"][0]["cache_control"] = MARK
    return body


SHORT = "Be brief."
THINKING = {"type": "enabled", "budget_tokens": 1024}
STAMPED = "[Fri 23:59:40] " + Q0

# (id, earlier requests, the faulty one, its clean twin (or a clean earlier request and the
# twin, where the fault is in the earlier one too), figures of the earlier ones, of the faulty
# one, of the twin, the causes of the faulty one, the first cause's detail or None)
CASES: list[tuple[Any, ...]] = [
    # The system prompt: a date, white space, other text. Nothing before it is marked.
    (
        "system-date",
        [first()],
        second(system=prompt(date=DAY2)),
        second(),
        FRESH,
        FRESH,
        on_from_first,
        [("system-date", "pfx.system.no-clock", "system.0")],
        "the system prompt holds a date or time",
    ),
    (
        "system-whitespace",
        [first()],
        second(system=prompt(gap="\n\n")),
        second(),
        FRESH,
        FRESH,
        on_from_first,
        [("system-whitespace", "pfx.system.once", "system.0")],
        "the system prompt's white space changed",
    ),
    (
        "system-text",
        [first()],
        second(system=prompt(mode="plan")),
        second(),
        FRESH,
        FRESH,
        on_from_first,
        [("system-text", "pfx.system.once", "system.0")],
        "the system prompt's text changed",
    ),
    # The tools: added, removed, reordered, a description or a schema changed.
    (
        "tools-added",
        [first()],
        second(tools=[READ, BASH, SEARCH]),
        second(),
        FRESH,
        FRESH,
        on_from_first,
        [("tools-added", "pfx.tools.fixed", "tools.2")],
        "tool added: mcp__docs__search",
    ),
    (
        "tools-removed",
        [first()],
        second(tools=[READ]),
        second(),
        FRESH,
        FRESH,
        on_from_first,
        [("tools-removed", "pfx.tools.fixed", "system.0")],
        "tool removed: bash",
    ),
    (
        "tools-reordered",
        [first()],
        second(tools=[BASH, READ]),
        second(),
        FRESH,
        FRESH,
        on_from_first,
        [("tools-reordered", "pfx.tools.fixed", "tools.0")],
        "tools reordered: bash, read",
    ),
    (
        "tool-description",
        [first()],
        second(tools=[tool("read", "Reads a file.", "path"), BASH]),
        second(),
        FRESH,
        FRESH,
        on_from_first,
        [("tool-description", "pfx.tools.fixed", "tools.0")],
        "tool read: description changed",
    ),
    (
        "tool-schema",
        [first()],
        second(tools=[tool("read", "Read a file.", "file"), BASH]),
        second(),
        FRESH,
        FRESH,
        on_from_first,
        [("tool-schema", "pfx.tools.fixed", "tools.0")],
        "tool read: schema changed",
    ),
    # An earlier message rewritten: the entry at the system block is all that is left.
    (
        "rewritten-text",
        [first()],
        second(q0="Which files are there?"),
        second(),
        FRESH,
        on_from_system,
        on_from_first,
        [("message-rewritten", "hist.persist.append-only", "messages.0.content.0")],
        "message 0 (user) was rewritten: text",
    ),
    (
        "rewritten-white-space",
        [first()],
        second(q0=Q0 + "\n"),
        second(),
        FRESH,
        on_from_system,
        on_from_first,
        [("message-rewritten", "hist.persist.append-only", "messages.0.content.0")],
        "message 0 (user) was rewritten: white space",
    ),
    (
        "rewritten-time",
        [request([user(STAMPED, True)])],
        second(q0="[Sat 00:00:30] " + Q0),
        second(q0=STAMPED),
        FRESH,
        on_from_system,
        lambda b: split(b, upto(b, "messages.0.content.0")),
        [("message-rewritten", "hist.persist.append-only", "messages.0.content.0")],
        "message 0 (user) was rewritten: a date or time",
    ),
    # The breakpoints: none, one out of the lookback's reach, a fifth (the API's 400).
    (
        "breakpoint-missing",
        [first(marked=False)],
        second(marked=False),
        (first(), second()),
        nothing,
        nothing,
        on_from_first,
        [("breakpoint-missing", "pfx.cache.marks", "messages.0.content.0")],
        "no cache_control in the request, nor a top-level one: nothing is read",
    ),
    (
        "breakpoint-moved",
        [first()],
        long_session(None),
        long_session(12),
        FRESH,
        on_from_system,
        on_from_first,
        [("breakpoint-moved", "pfx.cache.marks", "messages.0.content.0")],
        None,
    ),
    (
        "breakpoint-limit",
        [first()],
        five_marks(2),
        five_marks(1),
        FRESH,
        lambda b: 400,
        on_from_first,
        [("breakpoint-limit", "pfx.cache.limit", "messages.2.content.0")],
        "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    ),
    # Below the model's minimum: nothing is written, so nothing can be read.
    (
        "below-minimum",
        [first(system=SHORT)],
        second(system=SHORT),
        (first(), second()),
        nothing,
        nothing,
        on_from_first,
        [("below-minimum", None, "messages.0.content.0")],
        None,
    ),
    # A parameter that forks the cache from the first message on, and another model.
    (
        "thinking",
        [first(thinking=THINKING)],
        second(),
        second(thinking=THINKING),
        FRESH,
        on_from_system,
        on_from_first,
        [("parameter", "pfx.cache.params", None)],
        'thinking changed from {"budget_tokens":1024,"type":"enabled"} to (none): '
        "everything from the first message on",
    ),
    (
        "effort",
        [first(output_config={"effort": "low"})],
        second(output_config={"effort": "high"}),
        second(output_config={"effort": "low"}),
        FRESH,
        on_from_system,
        on_from_first,
        [("parameter", "pfx.cache.params", None)],
        'effort changed from "low" to "high": everything from the first message on',
    ),
    (
        "tool-choice",
        [first(tool_choice={"type": "auto"})],
        second(tool_choice={"type": "any"}),
        second(tool_choice={"type": "auto"}),
        FRESH,
        on_from_system,
        on_from_first,
        [("parameter", "pfx.cache.params", None)],
        'tool_choice changed from {"type":"auto"} to {"type":"any"}: '
        "everything from the first message on",
    ),
    (
        "model",
        [first()],
        second(model=OTHER_MODEL),
        second(),
        FRESH,
        FRESH,
        on_from_first,
        [("model", "pfx.system.switch", None)],
        f"model changed from {MODEL} to {OTHER_MODEL}: the whole cache",
    ),
]


@pytest.mark.parametrize(
    ("earlier", "faulty", "twin", "before", "broken", "clean", "named", "detail"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_a_fault_is_named_with_its_figures_and_the_clean_twin_loses_nothing(
    tmp_path: Path,
    earlier: list[dict[str, Any]],
    faulty: dict[str, Any],
    twin: dict[str, Any] | tuple[dict[str, Any], dict[str, Any]],
    before: Any,
    broken: Any,
    clean: Any,
    named: list[tuple[str, str | None, str | None]],
    detail: str | None,
) -> None:
    sent = play(tmp_path / "faulty", "anthropic", [*earlier, faulty])
    expected = [before(body) for body in earlier]
    assert answered(sent) == [*expected, broken(faulty)]
    assert [causes(sent, n) for n in range(len(earlier))] == [[] for _ in earlier]
    assert causes(sent, len(earlier)) == named
    if detail is not None:
        assert details(sent, len(earlier))[0] == detail
    clean_earlier, twin = (earlier, twin) if isinstance(twin, dict) else ([twin[0]], twin[1])
    kept = play(tmp_path / "twin", "anthropic", [*clean_earlier, twin])
    if clean_earlier is not earlier:
        expected = [FRESH(body) for body in clean_earlier]
    assert answered(kept) == [*expected, clean(twin)]
    assert [causes(kept, n) for n in range(len(kept.rows))] == [[] for _ in kept.rows]


def test_the_refused_request_is_answered_as_the_api_answers_it(tmp_path: Path) -> None:
    sent = play(tmp_path / "run", "anthropic", [first(), five_marks(2)])
    assert sent.answers[1].body == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "A maximum of 4 blocks with cache_control may be provided. Found 5.",
        },
    }
    assert sent.rows[1].refused == sent.answers[1].body["error"]["message"]
