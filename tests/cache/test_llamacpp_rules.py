"""llama.cpp's slots, pinned by sessions and their twins. Sizes as in test_openai_rules.py: a
1,024-token system message, 16-token questions and answers."""

from __future__ import annotations

from typing import Any

from ctxconf.cache.llamacpp_rules import simulate
from ctxconf.shapes import read_request

from .bodies import chat, text
from .helpers import figures, play
from .test_openai_rules import SYSTEM, turns


def body(last: int, **extra: Any) -> dict[str, Any]:
    return chat(SYSTEM, turns(last), model="qwen3-coder", **extra)


def title() -> dict[str, Any]:
    # A harness's own short request under another prompt: a system message of 42 + 300 bytes
    # (86 tokens) and a question (16). It shares 26 bytes with the loop's first message,
    # {"role":"system"}{"text":" and the first letter of "system": 6 tokens.
    return chat("s" + text(299, "title"), turns(0), model="qwen3-coder")


def test_the_longest_common_prefix_with_the_slot_is_reused_and_a_repeat_less_one() -> None:
    # No minimum: request 1 reuses all 1,040 tokens of request 0. Request 2 repeats request 1:
    # the whole prompt is shared, one token is evaluated again.
    assert play("llamacpp", "openai-chat", [(0, body(0)), (1, body(1)), (2, body(1))]) == [
        (1040, 0, 0, 0),
        (1072, 1040, 0, 0),
        (1072, 1071, 0, 0),
    ]


def test_one_slot_is_taken_by_the_request_in_between() -> None:
    timed = [(0, body(0)), (1, title()), (2, body(1))]
    # The title request runs in the only slot: the loop's next request shares 6 tokens with it.
    assert play("llamacpp", "openai-chat", timed) == [
        (1040, 0, 0, 0),
        (102, 6, 0, 0),
        (1072, 6, 0, 0),
    ]
    # With two slots the title request shares 6 of its 102 tokens with slot 0, under the 10 %
    # threshold, and goes to the empty slot; the loop's request finds its own again.
    built = [read_request("openai-chat", b, {}, t) for t, b in timed]
    assert figures(simulate(built, slots=2)) == [
        (1040, 0, 0, 0),
        (102, 0, 0, 0),
        (1072, 1040, 0, 0),
    ]


def test_a_named_slot_is_used_whatever_it_holds() -> None:
    built = [
        read_request("openai-chat", body(0), {}, 0),
        read_request("openai-chat", body(1, id_slot=1), {}, 1),
    ]
    assert figures(simulate(built, slots=2))[1] == (1072, 0, 0, 0)


def test_cache_prompt_false_reuses_nothing() -> None:
    timed = [(0, body(0)), (1, body(1, cache_prompt=False))]
    assert play("llamacpp", "openai-chat", timed)[1] == (1072, 0, 0, 0)
