"""The timeline of losses: each request held against what the one before it left readable, and
each loss's cause from the figures and the record where no bytes were kept."""

from __future__ import annotations

from ctxconf.audit.timeline import left_readable, session_timeline
from ctxconf.cache import openai_rules

from .helpers import request


def test_a_request_that_reads_what_the_one_before_left_is_no_loss() -> None:
    steps = session_timeline(
        [
            request(1, 0, read=0, w5m=10_000),
            request(2, 30, read=10_000, w5m=2_000),
            request(3, 60, read=12_000, w5m=1_000),
        ]
    )
    assert [s.readable for s in steps] == [None, 10_000, 12_000]
    assert [s.lost for s in steps] == [0, 0, 0]
    assert all(s.cause is None for s in steps)


def test_a_read_fallen_to_the_floor_is_a_rewritten_history() -> None:
    # The floor is 10,000: what request 2 read (system prompt, tools, first message).
    steps = session_timeline(
        [
            request(1, 0, read=0, w5m=10_000),
            request(2, 30, read=10_000, w5m=2_000),
            request(3, 60, read=12_000, w5m=1_000),
            request(4, 90, uncached=50, read=10_000, w5m=3_500),
        ]
    )
    last = steps[3]
    # Request 3 left 12,000 + 1,000 readable; request 4 sent 50 + 10,000 + 3,500 = 13,550.
    assert last.readable == 13_000
    assert last.lost == 13_000 - 10_000
    assert last.cause is not None
    assert (last.cause.kind, last.cause.basis, last.cause.blame) == (
        "history-rewritten",
        "inferred",
        "harness",
    )
    assert last.cause.anchor == "hist.persist.append-only"


def test_a_loss_is_capped_by_what_the_request_sent() -> None:
    # After a compaction the request sends less than was readable: it can read no more.
    steps = session_timeline(
        [
            request(1, 0, read=0, w5m=20_000),
            request(2, 10, uncached=10, read=2_000, w5m=3_000, boundary="compaction"),
        ]
    )
    assert steps[1].lost == (10 + 2_000 + 3_000) - 2_000
    assert steps[1].cause is not None and steps[1].cause.kind == "compaction"
    assert steps[1].cause.blame == "boundary"


def test_a_pause_past_the_lifetime_is_the_entrys_end_not_the_harnesss() -> None:
    steps = session_timeline(
        [
            request(1, 0, read=0, w5m=10_000),
            request(2, 301, read=0, w5m=10_500),
        ]
    )
    assert steps[1].lost == 10_000
    assert steps[1].gap == 301
    cause = steps[1].cause
    assert cause is not None and (cause.kind, cause.blame) == ("expired", "provider")
    assert "5 min" in cause.detail


def test_an_hours_entry_outlives_a_pause_of_six_minutes() -> None:
    steps = session_timeline(
        [
            request(1, 0, read=0, w1h=10_000),
            request(2, 360, read=10_000, w1h=500),
        ]
    )
    assert steps[1].lost == 0


def test_a_six_minute_pause_ends_the_five_minute_entries_and_keeps_the_hours() -> None:
    steps = session_timeline(
        [
            request(1, 0, read=0, w1h=8_000, w5m=2_000),
            request(2, 360, read=8_000, w5m=2_500),
        ]
    )
    assert steps[1].lost == 2_000
    cause = steps[1].cause
    assert cause is not None and cause.kind == "expired"
    assert "5 min entries had ended, the 1 h ones were read" in cause.detail


def test_a_read_of_about_nothing_is_a_changed_prefix() -> None:
    steps = session_timeline(
        [
            request(1, 0, read=0, w5m=10_000),
            request(2, 30, read=10_000, w5m=2_000),
            request(3, 60, read=0, w5m=12_400),
        ]
    )
    assert steps[2].lost == 12_000
    assert steps[2].cause is not None and steps[2].cause.kind == "prefix-changed"


def test_a_new_model_is_held_against_the_thread_and_its_own_requests_against_each_other() -> None:
    steps = session_timeline(
        [
            request(1, 0, read=0, w5m=10_000),
            request(2, 30, read=0, w5m=10_200, model="claude-opus-4-6"),
            request(3, 40, read=10_000, w5m=300),  # back on its own model: its entry holds
        ]
    )
    assert steps[1].lost == 10_000
    assert steps[1].cause is not None and steps[1].cause.kind == "model-changed"
    assert steps[2].previous == 0 and steps[2].lost == 0


def test_implicit_caching_reads_in_steps_and_a_shortfall_under_a_step_is_no_loss() -> None:
    def openai(line: int, seconds: float, sent: int, read: int) -> object:
        return request(
            line,
            seconds,
            uncached=sent - read,
            read=read,
            w5m=None,
            w1h=None,
            model="gpt-5.4",
            provider="openai",
        )

    first = openai(1, 0, 3_000, 0)
    # 3,000 tokens leave 1,024 + 15 steps of 128 = 2,944 readable.
    assert left_readable(first) == openai_rules.stepped(3_000) == 2_944  # type: ignore[arg-type]
    steps = session_timeline(
        [first, openai(2, 10, 3_500, 2_900), openai(3, 20, 4_000, 1_024)]  # type: ignore[list-item]
    )
    assert steps[1].lost == 0  # 44 short: under one step
    # Request 2 left 1,024 + 19 steps of 128 = 3,456 readable.
    assert steps[2].readable == 3_456 and steps[2].lost == 3_456 - 1_024


def test_a_source_without_cache_figures_judges_nothing() -> None:
    steps = session_timeline(
        [
            request(1, 0, read=None, w5m=None, w1h=None),
            request(2, 10, read=None, w5m=None, w1h=None),
        ]
    )
    assert [(s.readable, s.lost, s.cause) for s in steps] == [(None, 0, None), (None, 0, None)]


def test_a_sidechain_is_held_against_its_own_requests() -> None:
    steps = session_timeline(
        [
            request(1, 0, read=0, w5m=10_000),
            request(2, 5, read=0, w5m=3_000, sidechain=True),
            request(3, 10, read=10_000, w5m=100),
            request(4, 15, read=3_000, w5m=100, sidechain=True),
        ]
    )
    assert [s.previous for s in steps] == [None, None, 0, 1]
    assert [s.lost for s in steps] == [0, 0, 0, 0]


def test_the_providers_word_is_the_cause_where_no_bytes_were_kept() -> None:
    diagnostics = {"cache_miss_reason": {"type": "tools_changed", "cache_missed_input_tokens": 9}}
    steps = session_timeline(
        [
            request(1, 0, read=0, w5m=10_000),
            request(2, 30, read=0, w5m=10_100, diagnostics=diagnostics),
        ]
    )
    cause = steps[1].cause
    assert cause is not None
    assert (cause.kind, cause.basis, cause.anchor) == (
        "tools_changed",
        "provider",
        "pfx.tools.fixed",
    )
    assert steps[1].verdict is not None and steps[1].verdict.missed == 9
    assert steps[1].agrees is None  # the cause is the verdict: no second opinion


def test_an_expiry_beside_the_providers_no_change_agrees() -> None:
    steps = session_timeline(
        [
            request(1, 0, read=0, w5m=10_000),
            request(2, 400, read=0, w5m=10_100, diagnostics={"cache_miss_reason": {"type": "x"}}),
            request(3, 900, read=0, w5m=10_200),
        ]
    )
    assert steps[1].cause is not None and steps[1].cause.kind == "expired"
    assert steps[1].agrees is False  # the provider named a change the figures put on the clock


def test_an_upgrade_and_a_resume_in_the_record_are_named() -> None:
    steps = session_timeline(
        [
            request(1, 0, read=0, w5m=10_000),
            request(2, 30, read=6_000, w5m=4_500, boundary="version 2.1.1 → 2.1.2"),
            request(3, 60, read=6_000, w5m=4_700, boundary="resume"),
        ]
    )
    upgrade, resume = steps[1].cause, steps[2].cause
    assert upgrade is not None and (upgrade.kind, upgrade.blame) == ("version-changed", "boundary")
    assert steps[1].lost == 4_000
    assert resume is not None and (resume.kind, resume.blame) == ("resume", "harness")
    assert resume.anchor == "hist.persist.cold-equals-live"
    # Request 2 left 6,000 + 4,500 readable.
    assert steps[2].lost == 10_500 - 6_000


def test_a_partial_read_with_no_sign_is_unexplained_and_counted_apart() -> None:
    steps = session_timeline(
        [
            request(1, 0, read=0, w5m=10_000),
            request(2, 30, read=10_000, w5m=2_000),  # the floor: 10,000
            request(3, 60, read=11_000, w5m=2_000),
        ]
    )
    cause = steps[2].cause
    assert cause is not None and (cause.kind, cause.blame) == ("unexplained", "unknown")
    assert steps[2].lost == 12_000 - 11_000
