"""What a break cost, as counterfactuals: the request with the compared request's prefix kept,
the same request had no pause passed, and the provider's steps; each figure worked out by hand
from the sizes of bodies.py (a system block of 1,024 tokens, every message 16)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ctxconf.cache import Figures, Price, audit, loss_cost
from ctxconf.cache.counterfactual import kept_prefix
from ctxconf.cache.prefix import shared

from .bodies import assistant, block, chat, claude, text, user
from .helpers import audited, kinds, requests

SYSTEM = text(4071, "system")  # 1,024 tokens as an Anthropic block


def ask(n: int, marked: bool = False, ttl: str | None = None) -> dict[str, Any]:
    return block(text(24, f"q{n}"), ttl=ttl, marked=marked)  # 16 tokens


def answer(n: int) -> dict[str, Any]:
    return assistant(block(text(19, f"a{n}")))  # 16 tokens


def talk(turns: int, ttl: str | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for n in range(turns + 1):
        out.append(user(ask(n, marked=n == turns, ttl=ttl if n == turns else None)))
        if n < turns:
            out.append(answer(n))
    return out


def dated(day: str, turns: int) -> dict[str, Any]:
    """A system prompt whose last characters are a date, marked, then the conversation."""
    system = text(4061, "system") + day  # 4,061 + 10 characters: 1,024 tokens
    return claude([block(system, marked=True)], talk(turns))


def test_a_changed_date_loses_everything_the_request_before_left_readable() -> None:
    # Request 1 shares no whole unit with request 0: byte for byte it shares the system's first
    # 4,000-odd bytes and nothing is read. Keeping request 0's prompt it would have read all
    # request 0 wrote, 1,040 tokens: that, not the shared bytes, is what the date cost.
    result = audited(
        "anthropic", "anthropic", [(0, dated("2027-01-15", 0)), (10, dated("2027-01-16", 1))]
    )
    assert kinds(result) == [[], ["system-date"]]
    diagnosis = result.diagnoses[1]
    assert diagnosis is not None and diagnosis.read == 0
    assert (diagnosis.loss.harness, diagnosis.lost, diagnosis.loss.by_provider) == (1040, 1040, 0)
    assert diagnosis.shared < 1024


def test_lost_tokens_are_priced_at_what_they_were_billed() -> None:
    # 1,072 input: 0 read, 1,072 written for 5 minutes (1,024 of them for an hour), none
    # neither. Of the 1,040 lost, 1,024 were billed at the hour's write, 16 at the 5 minutes'.
    price = Price(
        "anthropic", "m", Decimal(3), Decimal("0.3"), Decimal("3.75"), Decimal(6), Decimal(15),
        "2027-01-01", "a test",
    )  # fmt: skip
    figures = Figures(1072, 0, 1072, 1024)
    harness, rest = loss_cost(figures, [1040, 32], price)
    assert harness == (1024 * (Decimal(6) - Decimal("0.3")) + 16 * Decimal("3.45")) / 1_000_000
    # The remaining 32 were written for 5 minutes: none is plain input.
    assert rest == 32 * Decimal("3.45") / 1_000_000
    # Plain input is priced at the input price less the read.
    (plain,) = loss_cost(Figures(100, 0, 0), [100], price)
    assert plain == 100 * Decimal("2.7") / 1_000_000


def test_a_pause_past_the_lifetime_is_the_provider_s_and_not_a_missing_mark() -> None:
    # 310 s after request 0 its five-minute entries are gone: nothing is read, and keeping the
    # prefix would not have helped. Had the pause not been, all 1,040 would have been read.
    timed = [(0, claude([block(SYSTEM, marked=True)], talk(0))),
             (310, claude([block(SYSTEM, marked=True)], talk(1)))]  # fmt: skip
    result = audited("anthropic", "anthropic", timed)
    assert kinds(result) == [[], ["expired"]]
    diagnosis = result.diagnoses[1]
    assert diagnosis is not None
    assert (diagnosis.lost, diagnosis.loss.lifetime) == (0, 1040)
    expired = diagnosis.causes[0]
    assert expired.anchor is None and expired.unit == "messages.0.content.0"
    assert expired.detail == (
        "the entry of 1,040 tokens request 1 last wrote or read with its mark at "
        "messages.0.content.0 lives 5 min, and 5 min 10 s passed before this request: the "
        "provider dropped it (no harness's doing)"
    )


def test_an_hour_s_mark_outlives_the_pause_and_only_the_rest_expires() -> None:
    # The system is marked for an hour, the question for 5 minutes: after 310 s the system's
    # 1,024 tokens are read and the question's 16 are lost to its lifetime, not to a mark.
    def hour(turns: int) -> dict[str, Any]:
        return claude([block(SYSTEM, ttl="1h")], talk(turns))

    result = audited("anthropic", "anthropic", [(0, hour(0)), (310, hour(1))])
    assert result.outcomes[1].figures == Figures(1072, 1024, 48, 0)
    assert kinds(result) == [[], ["expired"]]
    diagnosis = result.diagnoses[1]
    assert diagnosis is not None and (diagnosis.lost, diagnosis.loss.lifetime) == (0, 16)


def test_a_change_after_the_lifetime_costs_the_harness_nothing() -> None:
    # The date changed, but 400 s passed: the cache was gone either way.
    timed = [(0, dated("2027-01-15", 0)), (400, dated("2027-01-16", 1))]
    result = audited("anthropic", "anthropic", timed)
    diagnosis = result.diagnoses[1]
    assert diagnosis is not None
    assert [c.kind for c in diagnosis.causes] == ["expired"]
    assert (diagnosis.lost, diagnosis.loss.lifetime) == (0, 1040)


def test_the_prefix_kept_is_the_earlier_units_then_the_new_ones() -> None:
    # Request 1 changes the date and adds an answer and a question: the counterfactual is
    # request 0 as it was (system, q0) with a1... q1 after it.
    earlier, later = requests(
        "anthropic", [(0, dated("2027-01-15", 0)), (10, dated("2027-01-16", 1))]
    )
    kept = kept_prefix(earlier, later, shared(earlier, later))
    assert [u.data for u in kept.units[:2]] == [u.data for u in earlier.units]
    assert [u.data for u in kept.units[2:]] == [u.data for u in later.units[2:]]
    assert [u.message for u in kept.units] == [-1, 0, 1, 2]


def test_a_field_dropped_from_history_is_kept_in_the_counterfactual() -> None:
    # An OpenAI chat history whose answers lose their reasoning once answered: request 1 drops
    # it from a0 and a1. The counterfactual keeps request 0 whole (system, q0, a0, q1, a1, q2)
    # and appends only what is new: a2 and q3.
    def history(turns: int) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        for n in range(turns):
            said: dict[str, Any] = {"role": "assistant", "content": f"a{n}"}
            if n == turns - 1:
                said["reasoning_content"] = "thought"
            messages += [{"role": "user", "content": f"q{n}"}, said]
        return chat(text(5000, "s"), [*messages, {"role": "user", "content": f"q{turns}"}])

    earlier, later = requests("openai-chat", [(0, history(2)), (10, history(3))])
    kept = kept_prefix(earlier, later, shared(earlier, later))
    assert [u.data for u in kept.units] == [
        *(u.data for u in earlier.units),
        *(u.data for u in later.units[-2:]),
    ]
    assert [u.message for u in kept.units] == list(range(8))
    # Request 1 shares 1,295 tokens (and 3 bytes) and reads 1,280. Kept, it would have shared
    # all of request 0's 1,326 and read 1,280 too: the 128-token steps hide the change, and
    # the 46 tokens past the last step are the provider's.
    assert (earlier.tokens, shared(earlier, later).unit_tokens) == (1326, 1295)
    result = audit("openai", [earlier, later])
    found = result.diagnoses[1]
    assert found is not None and found.read == 1280
    assert [c.kind for c in found.causes] == ["reasoning-stripped", "rounding"]
    assert (found.lost, found.loss.provider) == (0, 46)
    assert found.causes[1].detail == (
        "OpenAI reads in steps of 128 tokens from 1024: 46 of the 1326 shared tokens fall past "
        "the last step"
    )


def test_a_request_of_its_own_keeps_nothing_and_is_charged_nothing() -> None:
    # After a loop request with tools, a title asked apart: no tool, a prompt of its own, not one
    # unit in common. It changed nothing of the loop's and could have read nothing.
    tools = [{"name": "read", "description": "Read a file", "input_schema": {"type": "object"}}]
    loop = claude([block(SYSTEM, marked=True)], talk(0), tools=tools)
    title = claude([block("Give the conversation a title.")], [user(block("q0 and a0"))])
    result = audited("anthropic", "anthropic", [(0, loop), (10, title)])
    assert kinds(result) == [[], []]


def test_no_part_of_a_loss_is_more_than_the_request_sent_unread() -> None:
    # Request 1 drops the tools and the system prompt's mark and sends one short message after
    # the system prompt: keeping request 0 would read its 1,040 tokens and the tools, more than
    # request 1's own 1,040. The loss is capped at what it sent and did not read.
    tools = [{"name": "read", "description": "Read a file", "input_schema": {"type": "object"}}]
    first = claude([block(SYSTEM, marked=True)], talk(0), tools=tools)
    second = claude([block(SYSTEM, marked=True)], talk(0))
    result = audited("anthropic", "anthropic", [(0, first), (10, second)])
    diagnosis = result.diagnoses[1]
    outcome = result.outcomes[1]
    assert diagnosis is not None and outcome.figures is not None
    assert diagnosis.causes[0].kind == "tools-removed"
    assert 0 < diagnosis.lost <= outcome.figures.input_total - outcome.figures.cache_read
