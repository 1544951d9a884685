"""The audit benchmark's corpus, on a tiny size: `ctxconf audit` reads every request the
generator wrote, and its sums by class are the generator's own. No timing: it depends on the
machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import audit_bench  # scripts of bench/, found by the path above
from audit_corpus import CODEX_WITHOUT_WRITES, Sums, audit_sums, generate

pytestmark = pytest.mark.slow  # runs the audit over a generated corpus


def _audit(tmp_path: Path, size: int, sessions: int) -> tuple[dict[str, Sums], dict[str, Sums]]:
    corpus = generate(tmp_path / "home", size, sessions)
    out = tmp_path / "audit.json"
    done = subprocess.run(
        audit_bench.audit_command(corpus, out), capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["problems"] == []
    assert audit_bench.check_read(corpus, doc) == []
    wrote = {s.session: s for s in corpus.sessions}
    return wrote, {s.session: s for s in audit_sums(doc)}


def test_the_audit_reads_every_generated_request_and_the_generators_sums(tmp_path: Path) -> None:
    wrote, read = _audit(tmp_path, 400_000, 10)
    assert read.keys() == wrote.keys()
    assert {s.source for s in wrote.values()} == {"claude-code", "codex"}
    for session, mine in wrote.items():
        got = read[session]
        assert got.requests == mine.requests > 0
        classes = ("uncached", "read", "written_5m", "written_1h", "output")
        assert [getattr(got, c) for c in classes] == [getattr(mine, c) for c in classes]
    # Every kind the generator writes is there: one-hour writes, streaming placeholders, a token
    # count told twice, an older Codex build whose writes are N/A.
    assert any(s.written_1h for s in wrote.values())
    assert any(s.placeholders for s in wrote.values())
    assert any(s.repeated_events for s in wrote.values())
    assert any(s.source == "codex" and s.written_5m is None for s in read.values())
    total = sum(s.requests for s in wrote.values())
    assert total == sum(s.requests for s in read.values())


def test_the_comparison_with_ccusage_puts_their_figures_beside_ours(tmp_path: Path) -> None:
    corpus = generate(tmp_path / "home", 200_000, 4)
    out = tmp_path / "audit.json"
    subprocess.run(audit_bench.audit_command(corpus, out), capture_output=True, check=True)
    doc = json.loads(out.read_text(encoding="utf-8"))
    report = audit_bench.Ccusage(version="ccusage 0")
    for sums in corpus.sessions:  # ccusage as if it read what was written, writes 0 for N/A
        row = {
            "inputTokens": sums.uncached,
            "outputTokens": sums.output,
            "cacheReadTokens": sums.read,
            "cacheCreationTokens": (sums.written_5m or 0) + (sums.written_1h or 0),
        }
        if sums.source == "codex":
            report.codex.setdefault("sessions", []).append(
                {**row, "sessionFile": sums.file.stem, "costUSD": 0.0}
            )
        else:
            report.claude.setdefault("sessions", []).append(
                {**row, "sessionId": sums.session, "totalCost": 0.0}
            )
    lines = audit_bench.comparison(doc, report)
    rows = {tuple(c.strip() for c in line.split("|")[1:3]): line for line in lines[2:]}
    assert rows[("claude-code", "read")].endswith("| 0 | 0 of 1 |")
    assert rows[("codex", "uncached input")].endswith("| 0 | 0 of 3 |")
    old = sum(1 for s in corpus.sessions if s.source == "codex" and s.written_5m is None)
    assert old and CODEX_WITHOUT_WRITES
    assert rows[("codex", "write")].startswith("| codex | write | N/A |")
    assert rows[("codex", "write")].endswith(f"| {old} of 3 |")
