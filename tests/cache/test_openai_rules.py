"""OpenAI's rules in both modes, each pinned by a session and its twin. Sizes: the system
message is 42 bytes of JSON around its text (4,054 characters: 4,096 bytes, 1,024 tokens); a
user message's text block 40 + L, an assistant's string content 45 + L: 64 bytes, 16 tokens
each here."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from ctxconf.cache import CacheRequest, Outcome, provider_named
from ctxconf.cache.openai_rules import (
    BREAKPOINT_SECONDS,
    MAX_WRITES,
    MINIMUM,
    SEARCHED,
    breakpoint_mode,
    breakpoints,
    generation,
    route,
    stepped,
)
from ctxconf.cache.outcome import Expiry, Figures, Shortfall
from ctxconf.cache.prefix import best_earlier, chain, cumulative_tokens
from ctxconf.cache.request import request_name
from ctxconf.shapes import read_request

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


def _marked(rng: random.Random, last: int, **extra: Any) -> dict[str, Any]:
    """A conversation of `last + 1` questions, the system prompt and some questions marked."""
    point = {"mode": "explicit"}
    prompts = (*(text(4054, f"system{n}") for n in range(10)), text(3958, "system"))
    system: dict[str, Any] = {"type": "text", "text": rng.choice(prompts)}
    if rng.random() < 0.5:
        system["prompt_cache_breakpoint"] = point
    messages = turns(last)
    for message in messages:
        if message["role"] == "user" and rng.random() < 0.7:
            message["content"][0]["prompt_cache_breakpoint"] = point
    return {"messages": [{"role": "system", "content": [system]}, *messages], **extra}


def test_a_long_breakpoint_session_plays_as_if_every_entry_were_asked_again() -> None:
    # Pauses under, at and past the 30 minutes, requests at the same time, a few sent late,
    # three routes by model and key, both modes of `prompt_cache_options` and the GPT-5.6 default,
    # up to five marks a request: each outcome is the one found by asking every earlier request
    # and every entry ever written at each request.
    rng = random.Random(56)
    t, built = 0.0, []
    for _ in range(150):
        long = rng.random() < 0.03
        t += rng.choice((1799.0, 1800.0, 1801.0, 2500.0) if long else (0.0, 1.0, 5.0, 30.0))
        lag = rng.choice((0.0,) * 14 + (60.0, 1800.0))
        extra: dict[str, Any] = rng.choice(
            (
                *({"model": "gpt-5.6-terra"},) * 6,
                {"model": "gpt-5.6-terra", "prompt_cache_key": "k"},
                {"model": "gpt-5.7-luna"},
                {"model": "gpt-5.4", "prompt_cache_options": {"mode": "explicit"}},
                {"model": "gpt-5.4", "prompt_cache_options": {"mode": "implicit"}},
            )
        )
        built.append(
            read_request("openai-chat", _marked(rng, rng.randrange(12), **extra), {}, t - lag)
        )
    assert all(breakpoint_mode(r) for r in built)
    outcomes = provider_named("openai").simulate(built)
    assert list(outcomes) == _asked_again(built)
    assert sum(o.expired is not None for o in outcomes) > 20
    assert sum(o.read_from is not None for o in outcomes) > 30
    assert {o.shortfall.kind for o in outcomes if o.shortfall} >= {
        "breakpoint-missing",
        "breakpoint-moved",
        "below-minimum",
    }
    # Given out of order, a request finds live what a later start had seen run out (request
    # 0's entry at 1,000, after 2,000; at 1,200 after 3,000 and a time of NaN, which is before
    # and after none) and holds request 0 again; requests at the same time hold and read
    # nothing of each other; an infinite time holds none and reads none.
    terra = {"model": "gpt-5.6-terra"}
    timed = [(0.0, 0), (2000.0, 1), (1000.0, 2), (3000.0, 3), (math.nan, 4), (1200.0, 5)]
    timed += [(1200.0, 6), (4000.0, 7), (3900.0, 8), (math.inf, 9), (math.inf, 10), (5000.0, 11)]
    late = [read_request("openai-chat", body(n, **terra), {}, at) for at, n in timed]
    replayed = provider_named("openai").simulate(late)
    assert list(replayed) == _asked_again(late)
    assert [o.held for o in replayed][2:7] == [(0,), (1,), (), (0, 2), (0, 2)]
    assert [o.read_from for o in replayed][2:7] == [0, 1, None, 2, 2]
    # Request 1, sent before request 0 started, writes the same entry again, and it runs out
    # first; of the two, the one written first is the one that expired.
    other = body(0, system=text(4054, "other"), **terra)
    twice = [(1000.0, body(0, **terra)), (500.0, body(0, **terra)), (2500.0, other)]
    twice += [(3000.0, body(1, **terra))]
    again = [read_request("openai-chat", b, {}, at) for at, b in twice]
    replayed = provider_named("openai").simulate(again)
    assert list(replayed) == _asked_again(again)
    expired = replayed[3].expired
    assert expired is not None and (expired.writer, expired.idle) == (0, 2000.0)


@dataclass
class _Written:
    key: tuple[str, str | None]
    digest: bytes
    tokens: int
    expires: float
    written_at: float
    writer: int
    unit: str
    used_by: int


def _asked_again(requests: Sequence[CacheRequest]) -> list[Outcome]:
    """A breakpoint session's outcomes as every earlier request and every entry ever written are
    asked again at each request (the rules as they were before they kept what is alive)."""
    requests = [provider_named("openai").reads(r) for r in requests]
    entries: list[_Written] = []
    out = []
    for index, request in enumerate(requests):
        t = request.time
        held = tuple(
            j for j in range(index) if requests[j].time < t < requests[j].time + BREAKPOINT_SECONDS
        )
        key = route(request)
        hashes = chain(request.units)
        cum = cumulative_tokens(request.units)
        position = {digest: i for i, digest in enumerate(hashes)}
        live = [e for e in entries if e.key == key and e.written_at < t < e.expires]
        hits = [e for e in live[-SEARCHED:] if e.digest in position]
        read = max((e.tokens for e in hits), default=0)
        read_from = None
        for e in hits:
            if e.tokens == read:
                e.expires, e.used_by, read_from = t + BREAKPOINT_SECONDS, index, e.writer
        gone = [
            e
            for e in entries
            if e.key == key and e.written_at < t and e.expires <= t and e.digest in position
        ]
        longest_gone = max(gone, key=lambda e: e.tokens, default=None)
        expired = None
        if longest_gone is not None and longest_gone.tokens > read:
            idle = t - (longest_gone.expires - BREAKPOINT_SECONDS)
            e = longest_gone
            expired = Expiry(e.used_by, e.unit, BREAKPOINT_SECONDS, idle, e.tokens)
        explicit, implicit = breakpoints(request)
        explicit = [i for i in explicit if i != implicit]
        worth = [i for i in explicit if cum[i] >= MINIMUM and cum[i] > read]
        chosen = worth[::-1][: MAX_WRITES - 1 if implicit is not None else MAX_WRITES]
        if implicit is not None and cum[implicit] >= MINIMUM and cum[implicit] > read:
            chosen.append(implicit)
        for i in chosen:
            path = request.units[i].path
            entries.append(
                _Written(key, hashes[i], cum[i], t + BREAKPOINT_SECONDS, t, index, path, index)
            )
        write = max((cum[i] for i in chosen), default=read) - read
        marks = explicit if implicit is None else [*explicit, implicit]
        shortfall = _shortfall(requests, index, held, read, marks, live)
        figures = Figures(request.tokens, read, write)
        out.append(Outcome(figures, None, held, shortfall, read_from, expired))
    return out


def _shortfall(
    requests: Sequence[CacheRequest],
    index: int,
    held: tuple[int, ...],
    read: int,
    marks: list[int],
    live: list[_Written],
) -> Shortfall | None:
    request = requests[index]
    key = route(request)
    same = [j for j in held if route(requests[j]) == key]
    best = best_earlier(requests, index, same)
    if best is None or best[1].unit_tokens <= read:
        return None
    reach, count = best[1].unit_tokens, best[1].units
    last_shared = request.units[count - 1].path
    if not marks:
        detail = (
            "prompt_cache_options.mode is explicit and no block is marked: nothing is read"
            if request.settings.mode == "explicit"
            else "no block is marked and no user or tool message takes the implicit one"
        )
        return Shortfall("breakpoint-missing", detail, last_shared, reach)
    if reach < MINIMUM:
        if not (best[1].full or request.tokens < MINIMUM):
            return None
        detail = f"the shared prefix is {reach} tokens; OpenAI caches from {MINIMUM}"
        return Shortfall("below-minimum", detail, last_shared, reach)
    hashes = chain(request.units)
    older = [e for e in live[:-SEARCHED] if e.digest in hashes and e.tokens > read]
    if older:
        tokens = older[-1].tokens
        writer = request_name(requests, older[-1].writer)
        detail = (
            f"{writer} wrote an entry of {tokens} tokens with its mark at {older[-1].unit} "
            f"that matches, but it is not among the latest {SEARCHED}"
        )
        return Shortfall("breakpoint-moved", detail, last_shared, tokens)
    detail = (
        f"no earlier breakpoint ends in the {reach - read} shared tokens after the {read} "
        "read, and a breakpoint matches only exactly"
    )
    return Shortfall("breakpoint-missing", detail, last_shared, reach)
