"""Harness faults the history area exists to catch fail named cases when run through the runner,
and the reference passes every history case.

Each fault is a module of tests/faulty/ (an edited copy of the reference, reached as
`python:tests.faulty.<name>`); the cases named are those of spec/conformance/history.json that
say, by their steps, what the fault gets wrong.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import ctxconf
from tests.paths import ROOT

# fault -> cases of the history area it must fail
FAULTS: dict[str, tuple[str, ...]] = {
    # A crash after a tool call: the call, written alone, comes back without its result.
    "history_persists_each_message": (
        "crash-between-call-and-result-reloads-the-turn-before",
        "crash-after-an-answered-call-keeps-nothing-of-the-turn",
    ),
    # The next write after a torn one glued to the fragment.
    "history_glues_torn_record": ("torn-record-is-dropped-and-the-next-write-stands-alone",),
    # A trim cut at an assistant or a result.
    "history_trim_splits_pair": (
        "trim-at-an-assistant-message-starts-with-the-person",
        "trim-between-parallel-results-keeps-the-whole-turn",
    ),
    # A branch that writes an entry besides the tip.
    "history_branch_writes_entry": ("branch-moves-only-the-tip",),
    # A fork's copies keeping the source's ids.
    "history_fork_keeps_ids": ("fork-gives-new-ids",),
    # A rewind to a dropped checkpoint moved to the oldest live point instead.
    "history_rewind_clamps": (
        "rewind-to-a-label-a-summary-covered-is-dropped",
        "rewind-to-a-label-on-another-branch-is-dropped",
    ),
    # A reload that rebuilds an assistant's message without its text.
    "history_reload_rebuilds_differently": ("reload-rebuilds-every-message-as-it-was",),
}


def run_history(impl: str, tmp_path: Path, expect: int) -> dict[str, str]:
    """`ctxconf run --area history` on `impl` as a subprocess: each case's verdict by name."""
    results = tmp_path / "results.json"
    run = ("run", "--impl", impl, "--area", "history", "--json", results)
    ctxconf(*run, cwd=tmp_path, expect=expect, importable=[ROOT])
    document = json.loads(results.read_text(encoding="utf-8"))
    return {case["name"]: case["verdict"] for case in document["cases"]}


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_history_fault_fails_its_named_cases(fault: str, tmp_path: Path) -> None:
    verdicts = run_history(f"python:tests.faulty.{fault}", tmp_path, expect=1)
    for name in FAULTS[fault]:
        assert name in verdicts, f"no history case {name}; the cases are {sorted(verdicts)}"
        assert verdicts[name] in ("fail", "error"), f"{fault} passes {name}"
    assert "pass" in verdicts.values(), "the fault must cost its cases, not every case"


@pytest.mark.slow
def test_the_reference_passes_every_history_case(tmp_path: Path) -> None:
    verdicts = run_history("reference", tmp_path, expect=0)
    assert verdicts and set(verdicts.values()) == {"pass"}
