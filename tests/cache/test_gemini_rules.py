"""Gemini's implicit cache, pinned by sessions and their twins. Sizes: a system part is 11 bytes
of JSON around its text (8,181 characters: 8,192 bytes, 2,048 tokens); a user part 26 + L and a
model part 27 + L: 64 bytes, 16 tokens each here."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import pytest

from ctxconf.cache import CacheRequest, Outcome, audit, provider_named
from ctxconf.cache.gemini_rules import IDLE_SECONDS, minimum_tokens
from ctxconf.cache.outcome import Expiry, Figures, Shortfall
from ctxconf.cache.prefix import longest
from ctxconf.shapes import read_request

from .bodies import gemini, text
from .helpers import audited, cause, kinds, play

SYSTEM = text(8181, "system")  # 2,048 tokens


def turns(last: int) -> list[dict[str, Any]]:
    contents: list[dict[str, Any]] = []
    for n in range(last + 1):
        contents.append({"role": "user", "parts": [{"text": text(38, f"q{n}")}]})
        if n < last:
            contents.append({"role": "model", "parts": [{"text": text(37, f"a{n}")}]})
    return contents


def session(
    system: str = SYSTEM, count: int = 2, step: float = 10.0
) -> list[tuple[float, dict[str, Any]]]:
    return [(step * n, gemini(system, turns(n))) for n in range(count)]


def test_the_shared_prefix_is_read_whole_once_it_reaches_the_minimum() -> None:
    # gemini-2.5-flash caches from 2,048: request 1 shares request 0's 2,064 tokens, all read.
    assert play("gemini", "gemini", session(count=3), model="gemini-2.5-flash") == [
        (2064, 0, 0, 0),
        (2096, 2064, 0, 0),
        (2128, 2096, 0, 0),
    ]


def test_under_the_minimum_nothing_is_read() -> None:
    # A system text of 8,101 characters is 2,028 tokens: request 1 shares 2,044, under 2,048.
    result = audited("gemini", "gemini", session(text(8101, "system"), 3), model="gemini-2.5-flash")
    assert [o.figures.cache_read for o in result.outcomes if o.figures] == [0, 0, 2076]
    assert kinds(result) == [[], ["below-minimum"], []]
    # gemini-3.1-pro-preview caches from 4,096: the 2,048-token session reads nothing there.
    assert play("gemini", "gemini", session(), model="gemini-3.1-pro-preview")[1] == (2096, 0, 0, 0)


def test_a_model_before_2_5_has_no_implicit_cache() -> None:
    result = audited("gemini", "gemini", session(), model="gemini-2.0-flash")
    assert result.outcomes[1].figures is not None
    assert result.outcomes[1].figures.cache_read == 0
    assert cause(result, 1).detail == (
        "gemini-2.0-flash has no implicit caching (Gemini 2.5 and later)"
    )


def test_a_prompt_is_held_five_minutes_after_its_last_use() -> None:
    assert play("gemini", "gemini", session(step=299.0), model="gemini-2.5-pro")[1][1] == 2064
    assert play("gemini", "gemini", session(step=300.0), model="gemini-2.5-pro")[1][1] == 0


def test_another_model_is_another_cache() -> None:
    # The model of each request is in its URL: here the second goes to another model.
    (t0, first), (t1, second) = session()
    built = [
        read_request("gemini", first, {}, t0, model="gemini-2.5-pro"),
        read_request("gemini", second, {}, t1, model="gemini-2.5-flash"),
    ]
    result = audit("gemini", built)
    assert [o.figures.cache_read for o in result.outcomes if o.figures] == [0, 0]
    assert cause(result, 1).detail == (
        "model changed from gemini-2.5-pro to gemini-2.5-flash: the whole cache"
    )


@pytest.mark.parametrize(
    ("model", "minimum"),
    [
        ("gemini-2.5-flash", 2048),
        ("gemini-2.5-pro", 2048),
        ("gemini-3-flash-preview", 1024),
        ("gemini-3-pro-preview", 4096),
        ("gemini-3.5-flash", 4096),
        ("gemini-2.0-flash", None),
        ("mock-model", None),
    ],
)
def test_a_model_id_finds_its_minimum(model: str, minimum: int | None) -> None:
    assert minimum_tokens(model) == minimum


def test_a_read_renews_the_prompt_it_read() -> None:
    # Request 0 (4 turns, 2,192 tokens) is read at 200 s by a request resending its first
    # question only (2,064); at 450 s a request going on from request 0 reads its 2,192 tokens
    # because that read renewed it. Without it, request 0 is gone at 300 s and only the short
    # request (alive until 500 s) is there to read: 2,064.
    def asked(last: int) -> dict[str, Any]:
        return gemini(SYSTEM, turns(last))

    renewed = play(
        "gemini",
        "gemini",
        [(0, asked(4)), (200, asked(0)), (450, asked(5))],
        model="gemini-2.5-pro",
    )
    assert renewed == [(2192, 0, 0, 0), (2064, 2064, 0, 0), (2224, 2192, 0, 0)]
    lapsed = play("gemini", "gemini", [(0, asked(4)), (450, asked(5))], model="gemini-2.5-pro")
    assert lapsed[1] == (2224, 0, 0, 0)


def test_the_read_is_the_longest_share_even_with_a_side_request() -> None:
    # The harness's own side request (the conversation and a prompt of its own) shares the
    # system, the first question and the answer (2,080) and 24 bytes of the next part,
    # {"role":"user"}{"text":" (6 tokens), with the loop's next request, which is read: 2,086.
    # The loop's request goes on from the loop's own earlier one, so no cause is named.
    side = gemini(
        SYSTEM, [*turns(1)[:2], {"role": "user", "parts": [{"text": "Update the memory files."}]}]
    )
    timed = [(0, gemini(SYSTEM, turns(0))), (1, side), (2, gemini(SYSTEM, turns(1)))]
    result = audited("gemini", "gemini", timed, model="gemini-2.5-pro")
    assert result.outcomes[2].figures is not None
    assert result.outcomes[2].figures.cache_read == 2086
    assert result.diagnoses[2] is None


def test_a_long_session_plays_as_if_every_earlier_prompt_were_asked_again() -> None:
    # Pauses under, at and past the idle lifetime, requests at the same time, some sent late
    # (their time before the one played last), three models (one with no implicit cache) and
    # systems above and under the minimums: each outcome is the one found by asking every
    # earlier prompt at each request.
    rng = random.Random(24)
    models = ("gemini-2.5-pro", "gemini-3-flash-preview", "gemini-2.0-flash")
    systems = (SYSTEM, text(4000, "short"))
    t, built = 0.0, []
    for _ in range(150):
        t += rng.choice((0.0, 0.0, 1.0, 10.0, 30.0, 150.0, 299.0, 300.0, 301.0, 600.0))
        lag = rng.choice((0.0,) * 9 + (50.0, 300.0, 900.0))
        body = gemini(rng.choice(systems), turns(rng.randrange(7)))
        model = rng.choice((*models[:2], *models))
        built.append(read_request("gemini", body, {}, t - lag, model=model))
    outcomes = provider_named("gemini").simulate(built)
    assert list(outcomes) == _asked_again(built)
    assert sum(o.expired is not None for o in outcomes) > 100
    assert sum(o.read_from is not None for o in outcomes) > 15
    assert {o.shortfall.kind for o in outcomes if o.shortfall} == {"below-minimum", "no-caching"}
    # Given out of order, a request finds alive what a later start had seen run out (0 at 150,
    # after 450), and reads the latest of two it shares as much with (1, not 0); a time of NaN
    # is before and after none; one sent at the same time as another does not hold it; one at
    # an infinite time holds none.
    timed = [(0.0, 0), (100.0, 0), (350.0, 1), (450.0, 2), (150.0, 1), (1000.0, 0), (math.nan, 0)]
    timed += [(200.0, 1), (200.0, 1), (math.inf, 0), (math.inf, 0)]
    late = [
        read_request("gemini", gemini(SYSTEM, turns(n)), {}, at, model="gemini-2.5-pro")
        for at, n in timed
    ]
    replayed = provider_named("gemini").simulate(late)
    assert list(replayed) == _asked_again(late)
    assert [o.held for o in replayed][4:] == [(0, 1), (), (), (0, 1, 4), (0, 1, 4), (), ()]
    assert replayed[4].read_from == 1


def _asked_again(requests: Sequence[CacheRequest]) -> list[Outcome]:
    """The session's outcomes as every earlier prompt is asked again at each request."""
    last_used: list[float] = []
    out = []
    for index, request in enumerate(requests):
        t, model = request.time, request.model
        ran = [requests[j].time < t for j in range(index)]
        alive = [j for j in range(index) if ran[j] and t < last_used[j] + IDLE_SECONDS]
        same = [j for j in alive if requests[j].model == model]
        best = longest(requests, index, same)
        length = best[1].tokens if best else 0
        minimum = minimum_tokens(model)
        read = length if minimum is not None and length >= minimum else 0
        if best and read:
            last_used[best[0]] = t
        dead = [j for j in range(index) if ran[j] and requests[j].model == model]
        dead = [j for j in dead if j not in same]
        ended = longest(requests, index, dead, above=length)
        expired = None
        if ended is not None:
            idle = t - last_used[ended[0]]
            expired = Expiry(ended[0], None, IDLE_SECONDS, idle, ended[1].tokens)
        last_used.append(t)
        shortfall = None
        if best and length and minimum is None:
            detail = f"{model} has no implicit caching (Gemini 2.5 and later)"
            shortfall = Shortfall("no-caching", detail, None, length)
        elif best and minimum and 0 < length < minimum:
            if best[1].full or request.tokens < minimum:
                detail = f"the shared prefix is {length} tokens; {model} caches from {minimum}"
                shortfall = Shortfall("below-minimum", detail, None, length)
        read_from = best[0] if best and read else None
        figures = Figures(request.tokens, read, 0)
        out.append(Outcome(figures, None, tuple(alive), shortfall, read_from, expired))
    return out
