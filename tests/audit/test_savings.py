"""What each fix would have saved: the session as sent and with one fix, both through the
simulator, priced at list prices."""

from __future__ import annotations

from decimal import Decimal

from ctxconf.audit.fixes import date_frozen, history_kept, nonce_removed, tool_order_kept
from ctxconf.audit.savings import session_savings
from ctxconf.cache import bundled_prices

from .helpers import request
from .test_bytes_evidence import body


def test_freezing_the_date_would_have_read_the_prompt_back_at_the_read_price() -> None:
    requests = [
        request(1, 0, body=body("2026-12-01", 0), shape="anthropic"),
        request(2, 30, body=body("2026-12-02", 1), shape="anthropic"),
    ]
    table = bundled_prices()
    [saving] = session_savings(requests, table)
    assert saving.fix == "date-frozen" and saving.complete
    assert saving.read_more > 2_000  # the system prompt, about 2,400 tokens
    price = table.find("anthropic", "claude-sonnet-4-5")
    assert price is not None
    # Each token read instead of written again costs the read price instead of the write price.
    expected = saving.read_more * (price.cache_write - price.cache_read) / Decimal(1_000_000)
    assert saving.saved_usd == expected


def test_a_session_that_breaks_nothing_has_nothing_to_save() -> None:
    requests = [
        request(1, 0, body=body("2026-12-01", 0), shape="anthropic"),
        request(2, 30, body=body("2026-12-01", 1), shape="anthropic"),
    ]
    assert session_savings(requests, bundled_prices()) == []


def test_each_fix_changes_only_what_it_names() -> None:
    first = {
        "system": "x-anthropic-billing-header: cc_version=2.1; cch=1a2b3; "
        "Today is 2026-12-01 09:30",
        "tools": [{"name": "b"}, {"name": "a"}],
        "messages": [{"role": "user", "content": "on 2026-12-01"}],
    }
    later = {**first, "system": first["system"].replace("2026-12-01 09:30", "2026-12-02 10:15")}
    later["messages"] = [{"role": "user", "content": "on 2026-12-02"}]
    frozen = date_frozen("anthropic", [first, later])
    assert frozen[0] == first
    assert frozen[1]["system"] == first["system"]  # held at the first request's date
    assert frozen[1]["messages"] == later["messages"]  # the person's words are theirs
    [plain] = nonce_removed("anthropic", [first])
    assert (
        plain["system"] == "x-anthropic-billing-header: cc_version=2.1; Today is 2026-12-01 09:30"
    )
    [ordered] = tool_order_kept("anthropic", [first])
    assert [t["name"] for t in ordered["tools"]] == ["a", "b"]
    second = {
        **first,
        "messages": [{"role": "user", "content": "rewritten"}, {"role": "user", "content": "new"}],
    }
    kept = history_kept("anthropic", [first, second])
    assert kept[1]["messages"] == [first["messages"][0], second["messages"][1]]


def test_a_fixs_savings_joined_add_up_and_stay_partial_where_either_was() -> None:
    from ctxconf.audit.savings import Saving

    rebuilt = Saving("date-frozen", 100, Decimal("0.5"), complete=False)
    whole = Saving("date-frozen", 40, Decimal("0.25"))
    assert rebuilt.joined(whole) == Saving("date-frozen", 140, Decimal("0.75"), complete=False)
    assert whole.joined(Saving("date-frozen", 10, None)).saved_usd is None
