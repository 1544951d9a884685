"""A session's bodies read with their shared blocks' units made once: the same findings and
savings as reading each body afresh, and a block's unit not made again."""

from __future__ import annotations

from ctxconf.audit.bytes_evidence import bytes_findings
from ctxconf.audit.readers.codex import READER as CODEX
from ctxconf.audit.savings import session_savings
from ctxconf.cache import bundled_prices
from ctxconf.cache.units import Parts, units_reused

from .helpers import FIXTURES, read_all


def test_a_block_met_again_at_its_place_is_the_unit_made_the_first_time() -> None:
    block = {"type": "function_call_output", "call_id": "c1", "output": "x" * 5000}
    with units_reused():
        first, second = Parts(), Parts()
        first.add("messages", "input.3", block, role="tool", message=3)
        second.add("messages", "input.3", block, role="tool", message=3)
        second.add("messages", "input.4", block, role="tool", message=4)  # another place
        same_value = Parts()
        same_value.add("messages", "input.3", dict(block), role="tool", message=3)
    assert second.units[0] is first.units[0]
    assert second.units[1] is not first.units[0] and second.units[1].path == "input.4"
    assert same_value.units[0] is not first.units[0]  # another object: made again, and equal
    assert same_value.units[0] == first.units[0]
    outside = Parts()
    outside.add("messages", "input.3", block, role="tool", message=3)
    assert outside.units[0] is not first.units[0] and outside.units[0] == first.units[0]


def test_a_rollouts_findings_and_savings_are_the_same_with_units_reused() -> None:
    table = bundled_prices()
    for path in sorted((FIXTURES / "codex").glob("rollout-*.jsonl")):
        requests, _ = read_all(CODEX, path)
        assert any(r.body is not None for r in requests)
        fresh = (bytes_findings(requests), session_savings(requests, table))
        with units_reused():
            reused = (bytes_findings(requests), session_savings(requests, table))
        assert reused == fresh
