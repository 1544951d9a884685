"""`usage-shown` holds every figure a harness shows at its key to the truth: a request's cached
tokens, or a running or whole total of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import checks_of, run_fake


@pytest.mark.parametrize("mode", ["per-turn", "stream-json"])
def test_a_session_total_that_counts_the_last_request_twice_fails(
    tmp_path: Path, mode: str
) -> None:
    # Each per-request line is right, so before only a figure that matched was looked for.
    run = run_fake(
        tmp_path, variant="counts_last_twice", options=("--total", "last-twice"), mode=mode
    )
    check = checks_of(run)["usage-shown"]
    assert check.verdict == "fail", check
    session, last = run.sessions[0], run.sessions[0].processes[-1]
    own = [
        int(e["usage"]["cached"])
        for e in session.entries
        if e.get("kind") == "answer" and last.first_request < e["n"] <= last.last_request
    ]
    assert sum(own) + own[-1] in check.figures["untrue"]  # what the last process printed last
    assert "is neither a request's cached tokens nor a running or whole total" in check.summary


@pytest.mark.parametrize("mode", ["per-turn", "stream-json"])
def test_per_request_lines_and_a_true_total_pass(tmp_path: Path, mode: str) -> None:
    run = run_fake(tmp_path, variant="counts_last_twice", options=("--total", "right"), mode=mode)
    check = checks_of(run)["usage-shown"]
    assert check.verdict == "pass", check
    assert check.figures["untrue"] == []
