"""`longest` and `best_earlier` pass over the earlier requests that cannot share more than the
best found so far, and still pick what comparing every one would: `longest` the most tokens, the
latest on a tie, None under `above`; `best_earlier` one not branched from first, then the most
whole-unit tokens, the most bytes of the next unit, the latest."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from ctxconf.cache.prefix import best_earlier, branches, longest, shared
from ctxconf.shapes import read_request


def _body(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"model": "gpt-5.4", "instructions": "You are a bench.", "input": items}


def _item(rng: random.Random, tag: str) -> dict[str, Any]:
    text = f"{tag} " + "x" * rng.choice((1, 10, 400, 4000))
    return {"type": "function_call_output", "call_id": tag, "output": text}


def _sessions(seed: int) -> list[Any]:
    """Histories that grow, are compacted, branch and repeat: every kind of candidate."""
    rng = random.Random(seed)
    history: list[dict[str, Any]] = []
    requests = []
    for n in range(60):
        roll = rng.random()
        if roll < 0.1:
            history = [_item(rng, f"summary{n}")]  # compacted
        elif roll < 0.2 and history:
            history = history[: rng.randrange(len(history))]  # a branch from earlier
        elif roll < 0.3 and history:
            history = [*history[:-1], _item(rng, f"edited{n}")]  # the last item edited
        elif roll < 0.45 and requests:
            requests.append(requests[-1])  # the same body sent again
            continue
        elif roll < 0.6 and history:
            # A side request: the last item swapped for one of its own, the history unchanged.
            side = [*history[:-1], _item(rng, f"side{n}")]
            requests.append(read_request("openai-responses", _body(side), (), float(n)))
            continue
        history = [*history, _item(rng, f"item{n}")]
        requests.append(read_request("openai-responses", _body(history), (), float(n)))
    return requests


def _every(requests: list[Any], index: int, candidates: list[int]) -> tuple[int, Any] | None:
    found = [(shared(requests[j], requests[index]), j) for j in candidates]
    if not found:
        return None
    best, j = max(found, key=lambda item: (item[0].tokens, item[1]))
    return j, best


def _draws() -> Iterator[tuple[list[Any], int, list[int], random.Random]]:
    """Each request of each session, with a random choice of earlier ones as candidates."""
    for seed in range(5):
        requests = _sessions(seed)
        rng = random.Random(seed)
        for index in range(1, len(requests)):
            candidates = sorted(rng.sample(range(index), k=min(index, rng.randint(1, 30))))
            yield requests, index, candidates, rng


def test_the_longest_is_the_one_comparing_every_candidate_would_pick() -> None:
    for requests, index, candidates, rng in _draws():
        expected = _every(requests, index, candidates)
        assert longest(requests, index, candidates) == expected
        above = expected[1].tokens if expected and rng.random() < 0.5 else rng.randint(0, 3000)
        kept = expected if expected and expected[1].tokens > above else None
        assert longest(requests, index, candidates, above=above) == kept
    assert longest(requests, 3, []) is None


def _every_ranked(requests: list[Any], index: int, candidates: list[int]) -> tuple[int, Any] | None:
    later = requests[index]
    ranked = []
    for j in candidates:
        found = shared(requests[j], later)
        rank = (not branches(requests[j], later, found), found.unit_tokens, found.partial_bytes, j)
        ranked.append((rank, j, found))
    if not ranked:
        return None
    _, j, found = max(ranked, key=lambda item: item[0])
    return j, found


def test_the_best_earlier_is_the_one_ranking_every_candidate_would_pick() -> None:
    for requests, index, candidates, _ in _draws():
        expected = _every_ranked(requests, index, candidates)
        assert best_earlier(requests, index, candidates) == expected
    assert best_earlier(requests, 3, []) is None
