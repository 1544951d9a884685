"""OpenAI's rules in both modes, each pinned by a session and its twin. Sizes: the system
message is 42 bytes of JSON around its text (4,054 characters: 4,096 bytes, 1,024 tokens); a
user message's text block 40 + L, an assistant's string content 45 + L: 64 bytes, 16 tokens
each here."""

from __future__ import annotations

from typing import Any

import pytest

from ctxconf.cache.openai_rules import generation, stepped

from .bodies import chat, text
from .helpers import audited, cause, kinds, play

SYSTEM = text(4054, "system")  # 1,024 tokens as the first message


def question(n: int, *extra: dict[str, Any]) -> dict[str, Any]:
    first = {"type": "text", "text": text(24, f"q{n}")}
    return {"role": "user", "content": [first, *extra]}


def answer(n: int) -> dict[str, Any]:
    return {"role": "assistant", "content": text(19, f"a{n}")}


def turns(last: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for n in range(last + 1):
        messages.append(question(n))
        if n < last:
            messages.append(answer(n))
    return messages


def body(last: int, system: str = SYSTEM, **extra: Any) -> dict[str, Any]:
    return chat(system, turns(last), **extra)


def test_a_shared_prefix_is_read_in_128_token_steps_from_1024() -> None:
    # Request n is 1,040 + 32n tokens and wholly starts the next one: request n + 1 shares
    # 1,040 + 32n, read as 1,024 while that is under 1,152 (requests 1 to 4), then 1,152.
    timed = [(10.0 * n, body(n)) for n in range(6)]
    assert play("openai", "openai-chat", timed) == [
        (1040, 0, 0, 0),
        (1072, 1024, 0, 0),
        (1104, 1024, 0, 0),
        (1136, 1024, 0, 0),
        (1168, 1024, 0, 0),
        (1200, 1152, 0, 0),
    ]


@pytest.mark.parametrize(
    ("shared", "read"), [(0, 0), (1023, 0), (1024, 1024), (1151, 1024), (1152, 1152), (1300, 1280)]
)
def test_the_steps(shared: int, read: int) -> None:
    assert stepped(shared) == read


def test_a_prefix_under_1024_tokens_is_not_read() -> None:
    # A system prompt of 3,958 characters is 4,000 bytes, 1,000 tokens: request 1 shares all of
    # request 0, 1,016 tokens, under the minimum; request 2 shares 1,048.
    short = [(10.0 * n, body(n, system=text(3958, "system"))) for n in range(3)]
    result = audited("openai", "openai-chat", short)
    assert [
        (o.figures.input_total, o.figures.cache_read) for o in result.outcomes if o.figures
    ] == [
        (1016, 0),
        (1048, 0),
        (1080, 1024),
    ]
    # Request 2 shares all 1,048 tokens of request 1 and reads the step below: 24 are rounding.
    assert kinds(result) == [[], ["below-minimum"], ["rounding"]]
    assert cause(result, 1).detail == "the shared prefix is 1016 tokens; OpenAI caches from 1024"
    assert cause(result, 2).detail == (
        "OpenAI reads in steps of 128 tokens from 1024: 24 of the 1048 shared tokens fall past "
        "the last step"
    )
    rounded = result.diagnoses[2]
    assert rounded is not None and (rounded.lost, rounded.loss.provider) == (0, 24)


def test_prompt_cache_key_routes_the_request() -> None:
    steady = [(10.0 * n, body(n, prompt_cache_key="run-1")) for n in range(2)]
    assert play("openai", "openai-chat", steady)[1] == (1072, 1024, 0, 0)
    # A key made again for every run (a restart): another machine, nothing read.
    restarted = [(10.0 * n, body(n, prompt_cache_key=f"run-{n}")) for n in range(2)]
    result = audited("openai", "openai-chat", restarted)
    assert result.outcomes[1].figures is not None
    assert result.outcomes[1].figures.cache_read == 0
    assert cause(result, 1).detail == (
        'prompt_cache_key changed from "run-0" to "run-1": the whole cache'
    )


def test_a_prompt_is_held_five_minutes_after_its_last_use() -> None:
    assert play("openai", "openai-chat", [(0, body(0)), (299, body(1))])[1] == (1072, 1024, 0, 0)
    assert play("openai", "openai-chat", [(0, body(0)), (300, body(1))])[1] == (1072, 0, 0, 0)


def test_a_read_renews_the_prompt_it_read() -> None:
    # Request 0 (4 turns, 1,168 tokens) is read by a shorter request at 200 s that resends only
    # its first question (1,040, read 1,024); at 450 s a request continuing request 0 shares
    # 1,168 with it (read 1,152) only because that read renewed it: without the read in between
    # request 0 is gone at 300 s and nothing is held.
    timed = [(0, body(4)), (200, body(0)), (450, body(5))]
    assert play("openai", "openai-chat", timed) == [
        (1168, 0, 0, 0),
        (1040, 1024, 0, 0),
        (1200, 1152, 0, 0),
    ]
    assert play("openai", "openai-chat", [(0, body(4)), (450, body(5))])[1] == (1200, 0, 0, 0)


def test_a_day_with_a_24_hour_retention() -> None:
    kept = [(0, body(0, prompt_cache_retention="24h")), (3600, body(1))]
    assert play("openai", "openai-chat", kept)[1] == (1072, 1024, 0, 0)
    assert play("openai", "openai-chat", [(0, body(0)), (3600, body(1))])[1] == (1072, 0, 0, 0)


def test_newer_models_read_exactly_at_the_implicit_breakpoint_and_report_writes() -> None:
    # gpt-5.6-terra: request 0 writes its prefix up to its latest user message (1,040); request
    # 1 reads exactly that, not a 128-token step, and writes the 32 tokens after it.
    timed = [(0, body(0, model="gpt-5.6-terra")), (10, body(1, model="gpt-5.6-terra"))]
    assert play("openai", "openai-chat", timed) == [(1040, 0, 1040, 0), (1072, 1040, 32, 0)]


def test_a_changing_tail_under_the_implicit_breakpoint_reads_nothing() -> None:
    # The time stamped as a second block of the latest question, and dropped from it once it is
    # no longer the latest: {"text":"time 12:00:01","type":"text"} is 38 bytes, 10 tokens. With
    # no fallback to a shorter prefix, request 1 finds no entry it holds exactly, although it
    # shares the system prompt and the first question: 0 read, 1,082 written again.
    def stamped(last: int, clock: str) -> dict[str, Any]:
        messages = turns(last)
        messages[-1]["content"].append({"type": "text", "text": f"time {clock}"})
        return chat(SYSTEM, messages, model="gpt-5.6-terra")

    timed = [(0, stamped(0, "12:00:01")), (10, stamped(1, "12:00:09"))]
    result = audited("openai", "openai-chat", timed)
    assert [
        (f.input_total, f.cache_read, f.cache_write)
        for f in (o.figures for o in result.outcomes)
        if f
    ] == [(1050, 0, 1050), (1082, 0, 1082)]
    # The rewrite is the cause: kept, the question would have held request 0's entry exactly,
    # all 1,050 tokens of it.
    assert kinds(result) == [[], ["message-rewritten"]]
    rewritten = result.diagnoses[1]
    assert rewritten is not None and rewritten.lost == 1050
    # The same session before GPT-5.6 reads the shared 1,040 tokens as 1,024.
    older = [(t, {**b, "model": "gpt-5.4"}) for t, b in timed]
    assert play("openai", "openai-chat", older)[1] == (1082, 1024, 0, 0)


def test_explicit_mode_caches_only_marked_blocks() -> None:
    explicit = {"prompt_cache_options": {"mode": "explicit"}, "model": "gpt-5.6-terra"}
    unmarked = [(10.0 * n, body(n, **explicit)) for n in range(2)]
    result = audited("openai", "openai-chat", unmarked)
    assert [o.figures.cache_write for o in result.outcomes if o.figures] == [0, 0]
    assert kinds(result) == [[], ["breakpoint-missing"]]

    def marked(last: int) -> dict[str, Any]:
        out = body(last, **explicit)
        point = {"mode": "explicit"}
        out["messages"][0]["content"] = [
            {"type": "text", "text": SYSTEM, "prompt_cache_breakpoint": point}
        ]
        return out

    # The marked system prompt (1,024) is written once and read after.
    assert play("openai", "openai-chat", [(0, marked(0)), (10, marked(1))]) == [
        (1040, 0, 1024, 0),
        (1072, 1024, 0, 0),
    ]


def _five_marks(marked: int) -> dict[str, Any]:
    """The system prompt and a question of five 7-character blocks, the first `marked` of them
    (the system prompt counted first) marked; the last block is the implicit breakpoint."""
    point = {"mode": "explicit"}
    blocks = [{"type": "text", "text": text(7, f"b{n}")} for n in range(5)]
    system = {"type": "text", "text": SYSTEM}
    for item in [system, *blocks][:marked]:
        item["prompt_cache_breakpoint"] = point
    return {
        "model": "gpt-5.6-terra",
        "messages": [{"role": "system", "content": [system]}, {"role": "user", "content": blocks}],
    }


def test_at_most_four_writes_the_implicit_one_and_the_latest_three() -> None:
    # The question's blocks: 40 + 7 = 47 bytes (12 tokens), then 25 + 7 = 32 (8): 1,068 in all.
    # A later request keeps the system prompt and the first block (1,036) and then differs.
    point = {"mode": "explicit"}
    later = {
        "model": "gpt-5.6-terra",
        "messages": [
            {
                "role": "system",
                "content": [{"type": "text", "text": SYSTEM, "prompt_cache_breakpoint": point}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": text(7, "b0"), "prompt_cache_breakpoint": point},
                    {"type": "text", "text": text(7, "zz")},
                ],
            },
        ],
    }
    # Five explicit marks: the implicit and the three latest explicit are written (blocks 2 to
    # 5), not the system prompt nor block 1, so the later request finds nothing to read.
    assert play("openai", "openai-chat", [(0, _five_marks(5)), (10, later)]) == [
        (1068, 0, 1068, 0),
        (1044, 0, 1044, 0),
    ]
    # Two marks and the implicit one: all written, and the later request reads block 1's 1,036.
    assert play("openai", "openai-chat", [(0, _five_marks(2)), (10, later)]) == [
        (1068, 0, 1068, 0),
        (1044, 1036, 8, 0),
    ]


def test_only_the_latest_50_breakpoints_are_searched() -> None:
    def asked(n: int, *rest: dict[str, Any]) -> dict[str, Any]:
        return chat(SYSTEM, [question(n), *rest], model="gpt-5.6-terra")

    def session(between: int) -> list[tuple[float, dict[str, Any]]]:
        # Request 0 writes its question's prefix; `between` others each write one of their own;
        # the last continues request 0 (1,072 tokens).
        others = [(1.0 + n, asked(100 + n)) for n in range(between)]
        return [(0.0, asked(0)), *others, (100.0, asked(0, answer(0), question(1)))]

    assert play("openai", "openai-chat", session(49))[-1] == (1072, 1040, 32, 0)
    result = audited("openai", "openai-chat", session(50))
    assert result.outcomes[-1].figures is not None
    assert result.outcomes[-1].figures.cache_read == 0
    shortfall = result.outcomes[-1].shortfall
    assert shortfall is not None
    assert (shortfall.kind, shortfall.detail) == (
        "breakpoint-moved",
        "request 1 wrote an entry of 1040 tokens with its mark at messages.1.content.0 that "
        "matches, but it is not among the latest 50",
    )


@pytest.mark.parametrize(
    ("model", "version"),
    [("gpt-5.6-terra", (5, 6)), ("gpt-5", (5, 0)), ("openai/gpt-6-sol", (6, 0)), ("o3", None)],
)
def test_the_generation_of_a_model_id(model: str, version: tuple[int, int] | None) -> None:
    assert generation(model) == version


def test_reasoning_effort_forks_nothing_here() -> None:
    efforts = [(0, body(0, reasoning_effort="low")), (10, body(1, reasoning_effort="high"))]
    result = audited("openai", "openai-chat", efforts)
    assert result.outcomes[1].figures is not None
    assert result.outcomes[1].figures.cache_read == 1024
    # All 1,040 tokens of request 0 are shared: nothing but the 128-token step is lost.
    assert kinds(result) == [[], ["rounding"]]
    diagnosis = result.diagnoses[1]
    assert diagnosis is not None and (diagnosis.lost, diagnosis.loss.provider) == (0, 16)


def test_a_breakpoint_entry_lives_thirty_minutes_renewed_by_a_read() -> None:
    def terra(last: int, *rest: dict[str, Any]) -> dict[str, Any]:
        return chat(SYSTEM, [*turns(last), *rest], model="gpt-5.6-terra")

    assert play("openai", "openai-chat", [(0, terra(0)), (1799, terra(1))])[1] == (
        1072,
        1040,
        32,
        0,
    )
    assert play("openai", "openai-chat", [(0, terra(0)), (1800, terra(1))])[1] == (1072, 0, 1072, 0)
    # Request 1 at 1,000 s reads request 0's entry (1,040) and renews it; at 2,500 s a request
    # that keeps only request 0's prefix and then answers otherwise reads it still.
    other = chat(SYSTEM, [question(0), answer(7), question(8)], model="gpt-5.6-terra")
    renewed = play("openai", "openai-chat", [(0, terra(0)), (1000, terra(1)), (2500, other)])
    assert renewed[2] == (1072, 1040, 32, 0)
    lapsed = play("openai", "openai-chat", [(0, terra(0)), (2500, other)])
    assert lapsed[1] == (1072, 0, 1072, 0)
