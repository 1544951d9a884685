"""Anthropic's rules, each pinned by a session and its twin. Sizes (bodies.py): the system block
is 25 bytes of JSON around a 4,071-character text, 4,096 bytes, 1,024 tokens, the minimum of
claude-sonnet-4-5; each user or assistant message is 64 bytes, 16 tokens."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ctxconf.cache import provider_named
from ctxconf.cache.anthropic_rules import minimum_tokens
from ctxconf.shapes import read_request

from .bodies import assistant, block, claude, text, tool_result, tool_use, user
from .helpers import audited, cause, kinds, play

SYSTEM = text(4071, "system")  # 1,024 tokens as a block


def ask(n: int) -> dict[str, Any]:
    return block(text(24, f"q{n}"))  # 40 + 24 = 64 bytes, 16 tokens


def answer(n: int) -> dict[str, Any]:
    return assistant(block(text(19, f"a{n}")))  # 45 + 19 = 64 bytes, 16 tokens


def conversation(turns: int, marked: bool = True, ttl: str | None = None) -> list[dict[str, Any]]:
    """The user's questions and the answers up to question `turns`, the last one marked as
    Claude Code marks it."""
    messages: list[dict[str, Any]] = []
    for n in range(turns + 1):
        last = ask(n)
        if n == turns and marked:
            last = {**last, "cache_control": {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}}
        messages.append(user(last))
        if n < turns:
            messages.append(answer(n))
    return messages


def body(turns: int, marked: bool = True, **extra: Any) -> dict[str, Any]:
    system = [block(SYSTEM, marked=marked)]
    return claude(system, conversation(turns, marked), **extra)


def test_breakpoints_write_their_prefix_and_a_later_request_reads_it() -> None:
    # Request 0: 1,024 + 16 = 1,040 tokens, marks on the system (1,024) and the question: both
    # written, the longest 1,040. Request 1 adds an answer and a question (1,072): from its
    # mark the lookback finds request 0's entry at the question, 1,040 read, 32 written.
    assert play("anthropic", "anthropic", [(0, body(0)), (10, body(1)), (20, body(2))]) == [
        (1040, 0, 1040, 0),
        (1072, 1040, 32, 0),
        (1104, 1072, 32, 0),
    ]


def test_without_a_breakpoint_nothing_is_read_or_written() -> None:
    timed = [(0, body(0, marked=False)), (10, body(1, marked=False))]
    assert play("anthropic", "anthropic", timed) == [(1040, 0, 0, 0), (1072, 0, 0, 0)]
    result = audited("anthropic", "anthropic", timed)
    assert kinds(result) == [[], ["breakpoint-missing"]]
    missing = cause(result, 1)
    assert (missing.unit, missing.anchor) == ("messages.0.content.0", "pfx.cache.marks")


def _marked_blocks(count: int) -> dict[str, Any]:
    blocks = [block(text(7, f"b{n}"), marked=True) for n in range(count)]
    return claude([block(SYSTEM)], [user(*blocks)])


def test_a_fifth_breakpoint_is_refused_as_the_api_refuses_it() -> None:
    outcomes = audited("anthropic", "anthropic", [(0, _marked_blocks(5))]).outcomes
    error = outcomes[0].error
    assert error is not None and outcomes[0].figures is None
    assert (error.status, dict(error.body)) == (
        400,
        {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "A maximum of 4 blocks with cache_control may be provided. Found 5.",
            },
        },
    )
    # Four are accepted: 1,024 + (40 + 7 = 47 bytes, 12) + 3 x (25 + 7 = 32 bytes, 8) = 1,060,
    # all written (the first mark's prefix, 1,036, is over the minimum).
    assert play("anthropic", "anthropic", [(0, _marked_blocks(4))]) == [(1060, 0, 1060, 0)]


def test_the_automatic_breakpoint_takes_one_of_the_four() -> None:
    four = _marked_blocks(4)
    four["messages"][0]["content"].append(block("tail"))
    automatic = {**four, "cache_control": {"type": "ephemeral"}}
    assert play("anthropic", "anthropic", [(0, automatic)]) == ["breakpoint-limit"]
    # On a last block already marked with the same lifetime it is no fifth.
    same = {**_marked_blocks(4), "cache_control": {"type": "ephemeral"}}
    assert play("anthropic", "anthropic", [(0, same)]) == [(1060, 0, 1060, 0)]
    # With another lifetime there it is refused.
    other = {**_marked_blocks(4), "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    assert play("anthropic", "anthropic", [(0, other)]) == ["automatic-ttl"]


def test_automatic_caching_puts_the_breakpoint_on_the_last_block_as_it_moves() -> None:
    auto = {"cache_control": {"type": "ephemeral"}}
    timed = [(0, body(0, marked=False, **auto)), (10, body(1, marked=False, **auto))]
    # Request 0 writes at its last block (1,040); request 1's automatic mark, on its new last
    # block, finds it: 1,040 read, 32 written. The twin without it is
    # test_without_a_breakpoint_nothing_is_read_or_written.
    assert play("anthropic", "anthropic", timed) == [(1040, 0, 1040, 0), (1072, 1040, 32, 0)]


def test_a_one_hour_mark_after_a_five_minute_one_is_refused() -> None:
    late = claude([block(SYSTEM, marked=True)], [user(block("go", ttl="1h"))])
    outcome = audited("anthropic", "anthropic", [(0, late)]).outcomes[0]
    assert outcome.error is not None
    assert outcome.error.message == (
        "messages.0.content.0.cache_control.ttl: a ttl='1h' cache_control block must not come "
        "after a ttl='5m' cache_control block. Note that blocks are processed in the following "
        "order: tools, system, messages."
    )
    # In order, one hour then five minutes: the system's 1,024 tokens are written for an hour
    # and the question (40 + 2 = 42 bytes, 11 tokens) for five minutes: 1,035 in all.
    early = claude([block(SYSTEM, ttl="1h")], [user(block("go", marked=True))])
    assert play("anthropic", "anthropic", [(0, early)]) == [(1035, 0, 1035, 1024)]


def _spread(pairs: int, per_message: int) -> dict[str, Any]:
    """Request 1 of a lookback session: request 0's question, then `pairs` turns of
    `per_message` calls and their results, and a marked text after the last results."""
    messages: list[dict[str, Any]] = [user(ask(0))]
    for p in range(pairs):
        ids = [f"toolu_{p:02d}{c}" for c in range(per_message)]  # 9 characters each
        messages.append(assistant(*(tool_use(i, "x", {}) for i in ids)))
        messages.append(user(*(tool_result(i, "ok") for i in ids)))
    messages[-1]["content"].append(block(text(7, "go"), marked=True))
    return claude([block(SYSTEM, marked=True)], messages)


def test_the_lookback_reaches_twenty_positions_and_a_run_of_calls_is_one() -> None:
    first = claude(
        [block(SYSTEM, marked=True)], [user({**ask(0), "cache_control": {"type": "ephemeral"}})]
    )
    # 9 turns of 3 calls: each turn's calls are one position and its results another, so the
    # mark is 19 positions after the question and its window (20, the mark counted) holds it.
    # A call: 46 + 9 + 2 + 1 = 58 bytes (15 tokens), 78 as the first of a message (20); a
    # result: 52 + 2 + 9 = 63 bytes (16), 78 as the first (20). A turn: 50 + 52 = 102 tokens;
    # 9 turns 918; the marked text 25 + 7 = 32 bytes (8). 1,024 + 16 + 918 + 8 = 1,966 in all,
    # 1,040 read (request 0's question), 926 written.
    runs = play("anthropic", "anthropic", [(0, first), (10, _spread(9, 3))])
    assert runs == [(1040, 0, 1040, 0), (1966, 1040, 926, 0)]
    # The same 27 calls one per turn are 54 positions: the question is out of reach and only
    # the system's entry is read. A turn is 20 + 20 = 40 tokens, 27 of them 1,080: 2,128 in all.
    spread = play("anthropic", "anthropic", [(0, first), (10, _spread(27, 1))])
    assert spread == [(1040, 0, 1040, 0), (2128, 1024, 1104, 0)]


def _blocks_after(count: int) -> dict[str, Any]:
    """Request 0's question, an answer, then a question of `count` text blocks, the last one
    marked: `count` + 1 positions after request 0's entry."""
    blocks = [ask(1)] + [block(text(7, f"b{n}")) for n in range(count - 1)]
    blocks[-1] = {**blocks[-1], "cache_control": {"type": "ephemeral"}}
    return claude([block(SYSTEM, marked=True)], [user(ask(0)), answer(0), user(*blocks)])


def test_twenty_positions_counting_the_breakpoint_and_not_one_more() -> None:
    first = claude(
        [block(SYSTEM, marked=True)], [user({**ask(0), "cache_control": {"type": "ephemeral"}})]
    )
    # 18 blocks: the mark is 19 positions after the entry, the 20th checked. 1,024 + 16 + 16 +
    # 16 + 17 x 8 = 1,208; 1,040 read.
    assert play("anthropic", "anthropic", [(0, first), (10, _blocks_after(18))])[1] == (
        1208,
        1040,
        168,
        0,
    )
    # 19 blocks: 20 positions after it, the 21st: only the system's entry is read.
    result = audited("anthropic", "anthropic", [(0, first), (10, _blocks_after(19))])
    assert result.outcomes[1].figures is not None
    assert result.outcomes[1].figures.cache_read == 1024
    shortfall = result.outcomes[1].shortfall
    assert shortfall is not None and shortfall.kind == "breakpoint-moved"
    assert shortfall.detail == (
        "request 1 wrote an entry with its mark at messages.0.content.0; this request's mark is "
        "at messages.2.content.18, 21 positions from it counting both: the lookback checks 20"
    )


def test_a_prefix_under_the_model_minimum_is_never_written() -> None:
    timed = [(0, body(0)), (10, body(1))]
    # claude-haiku-4-5 caches from 4,096 tokens: neither mark's prefix (1,024, 1,040) reaches it.
    haiku = audited("anthropic", "anthropic", timed, model="claude-haiku-4-5")
    assert [(o.figures.cache_read, o.figures.cache_write) for o in haiku.outcomes if o.figures] == [
        (0, 0),
        (0, 0),
    ]
    assert kinds(haiku) == [[], ["below-minimum"]]
    assert cause(haiku, 1).detail == (
        "the shared prefix is 1040 tokens; claude-haiku-4-5 caches from 4096"
    )
    # claude-sonnet-4-5 caches from 1,024: the same session reads.
    assert play("anthropic", "anthropic", timed)[1] == (1072, 1040, 32, 0)


@pytest.mark.parametrize(
    ("model", "minimum"),
    [
        ("claude-sonnet-4-5-20250929", 1024),
        ("claude-opus-4-20250514", 1024),
        ("claude-opus-4-5", 4096),
        ("claude-3-5-haiku-20241022", 2048),
        ("claude-3-haiku-20240307", 2048),
        ("claude-mythos-preview", 2048),
        ("claude-fable-5-1", 512),
        ("mock-model", 1024),
    ],
)
def test_a_model_id_finds_its_minimum_and_a_date_is_no_version(model: str, minimum: int) -> None:
    assert minimum_tokens(model) == minimum


def test_an_entry_lives_five_minutes_from_the_start_of_its_request() -> None:
    # 299 s after request 0 its entries are read; at 300 s they are gone.
    assert play("anthropic", "anthropic", [(0, body(0)), (299, body(1))])[1] == (1072, 1040, 32, 0)
    assert play("anthropic", "anthropic", [(0, body(0)), (300, body(1))])[1] == (1072, 0, 1072, 0)


def test_a_one_hour_entry_outlives_the_five_minute_ones() -> None:
    def hour(turns: int) -> dict[str, Any]:
        return claude([block(SYSTEM, ttl="1h")], conversation(turns))

    # At 1,000 s the system's one-hour entry is read, the question's five-minute one is gone.
    assert play("anthropic", "anthropic", [(0, hour(0)), (1000, hour(1))]) == [
        (1040, 0, 1040, 1024),
        (1072, 1024, 48, 0),
    ]


def test_a_read_refreshes_the_entry_it_read() -> None:
    # Request 1 at 200 s reads request 0's entry at the question and renews it until 500 s;
    # request 2 at 450 s starts like request 0 and then goes its own way (another answer), so
    # that entry is all it can find: 1,040 read. Without request 1 it died at 300 s.
    retry = claude(
        [block(SYSTEM, marked=True)],
        [user(ask(0)), answer(9), user({**ask(9), "cache_control": {"type": "ephemeral"}})],
    )
    refreshed = play("anthropic", "anthropic", [(0, body(0)), (200, body(1)), (450, retry)])
    assert refreshed[2] == (1072, 1040, 32, 0)
    lapsed = play("anthropic", "anthropic", [(0, body(0)), (450, retry)])
    assert lapsed[1] == (1072, 0, 1072, 0)


def test_an_entry_is_read_only_by_a_request_that_starts_after_it() -> None:
    # Two requests sent at once: the second cannot read what the first is writing.
    assert play("anthropic", "anthropic", [(5, body(0)), (5, body(1))])[1] == (1072, 0, 1072, 0)


@pytest.mark.parametrize(
    ("extra", "name"),
    [
        ({"tool_choice": {"type": "any"}}, "tool_choice"),
        ({"thinking": {"type": "enabled", "budget_tokens": 1024}}, "thinking"),
        ({"output_config": {"effort": "low"}}, "effort"),
    ],
)
def test_a_forking_parameter_keeps_tools_and_system_and_loses_the_messages(
    extra: dict[str, Any], name: str
) -> None:
    # Request 1 changes the parameter: the system's entry (1,024) is read, not the question's.
    forked = audited("anthropic", "anthropic", [(0, body(0)), (10, body(1, **extra))])
    assert [o.figures.cache_read for o in forked.outcomes if o.figures] == [0, 1024]
    assert kinds(forked) == [[], ["parameter"]]
    assert cause(forked, 1).detail.startswith(f"{name} changed from (none) to ")
    same = play("anthropic", "anthropic", [(0, body(0, **extra)), (10, body(1, **extra))])
    assert same[1] == (1072, 1040, 32, 0)


def test_an_image_appearing_forks_the_messages() -> None:
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
    }
    with_image = body(1)
    with_image["messages"][-1]["content"].insert(0, image)
    forked = audited("anthropic", "anthropic", [(0, body(0)), (10, with_image)])
    assert forked.outcomes[1].figures is not None
    assert forked.outcomes[1].figures.cache_read == 1024
    assert cause(forked, 1).detail.startswith("images changed from absent to present")


def test_another_model_is_another_cache() -> None:
    switched = audited(
        "anthropic", "anthropic", [(0, body(0)), (10, body(1, model="claude-sonnet-4-6"))]
    )
    assert switched.outcomes[1].figures is not None
    assert switched.outcomes[1].figures.cache_read == 0
    switch = cause(switched, 1)
    assert (switch.kind, switch.anchor) == ("model", "pfx.system.switch")


def test_a_request_holds_the_answered_ones_within_their_longest_lifetime() -> None:
    # A long session: pauses past five minutes and past an hour, one-hour marks, refused
    # requests (five marks) and two requests at once. Each request holds every answered earlier
    # one whose longest mark still lives at its start.
    rng = random.Random(7)
    t, timed = 0.0, []
    for n in range(120):
        t += rng.choice((0.0, 1.0, 30.0, 200.0, 400.0, 4000.0))
        roll = rng.random()
        if roll < 0.1:
            sent = _marked_blocks(5)
        elif roll < 0.4:
            sent = claude([block(SYSTEM, ttl="1h")], conversation(n % 7))
        else:
            sent = body(n % 7)
        timed.append((t, sent))
    requests = [read_request("anthropic", sent, {}, at) for at, sent in timed]
    rules = provider_named("anthropic")
    outcomes = rules.simulate(requests)
    assert any(o.error is not None for o in outcomes) and len({o.held for o in outcomes}) > 20
    for index, outcome in enumerate(outcomes):
        start = requests[index].time
        held = tuple(
            j
            for j in range(index)
            if outcomes[j].error is None
            and requests[j].time < start < requests[j].time + _lifetime(timed[j][1])
        )
        assert outcome.held == held, index
    # Given out of order, a request still holds what lived at its start, though a later start
    # had seen it end.
    late = [read_request("anthropic", body(0), {}, at) for at in (0.0, 10.0, 400.0, 250.0)]
    assert [o.held for o in rules.simulate(late)] == [(), (0,), (), (0, 1)]


def _lifetime(sent: dict[str, Any]) -> float:
    hour = any(b.get("cache_control", {}).get("ttl") == "1h" for b in sent["system"])
    return 3600.0 if hour else 300.0
