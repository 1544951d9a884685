"""The readers against files real harnesses wrote (tests/audit/fixtures/real/, its README.md):
each session file's requests, in order, are the probe's own answered requests of the same run,
figure for figure (uncached, read, written), as the mock computed and reported them, apart from
the gaps named below; and `ctxconf audit` over them all holds each session once."""

from __future__ import annotations

import json
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ctxconf.audit.record import AuditRequest, Problem
from ctxconf.audit.scan import find_files
from tests.cli import ctxconf
from tests.paths import ROOT

from .helpers import FIXTURES

REAL = FIXTURES / "real"
FOLDERS = sorted(p.name for p in REAL.iterdir() if p.is_dir())
SCHEMA = json.loads((ROOT / "schemas" / "audit-results.schema.json").read_text())

# Requests the mock answered that a folder's records do not hold: the folder, the request's
# `n` in the probe's list, and why. A folder not named here must match in full.
GAPS: dict[str, dict[int, str]] = {
    "claude-code-2.1.332-compact": {
        4: "the compaction's summary request: no assistant line; only in cost-state's total",
        5: "the compaction's second request: likewise, and the total cannot be split in two",
    },
    "opencode-1.18.33-basic": {1: "the title request: no message, in no total"},
    "kilo-7.7.7-basic": {7: "the title request: no message, in no total"},
}

# Files whose source has no cache-write figure at all (N/A, never 0): the folder and a pattern
# for the file's name. The mock wrote nothing there (the probe's figure is 0).
NO_WRITE_FIGURE: dict[str, tuple[str, str]] = {
    "gemini-cli-0.61.0-basic": ("*.jsonl", "Gemini CLI's chat: the implicit cache bills none"),
    "gemini-cli-0.61.0-basic-telemetry": ("telemetry.log", "Gemini's telemetry: the same"),
    "copilot-1.0.102-basic-otel": ("copilot-otel.jsonl", "Copilot's OTel spans name no write"),
}


@dataclass(frozen=True)
class Figures:
    n: int  # the request's place in the probe's list
    uncached: int | None
    read: int | None
    written: int | None


def probe_requests(folder: str) -> list[Figures]:
    """The folder's answered requests as the probe's results give them (its `uncached` is what
    was not read, the writes among it: the class apart from both is what is left of the total).
    """
    results = json.loads((REAL / folder / "probe-results.json").read_text())
    return [
        Figures(
            r["n"],
            r["input_total"] - r["cache_read"] - r["cache_write"],
            r["cache_read"],
            r["cache_write"],
        )
        for session in results["cache"]["sessions"]
        for r in session["requests"]
        if r["refused"] is None
    ]


def expected(folder: str, path: Path) -> list[Figures]:
    gaps = GAPS.get(folder, {})
    no_write = folder in NO_WRITE_FIGURE and fnmatch(path.name, NO_WRITE_FIGURE[folder][0])
    found = []
    for request in probe_requests(folder):
        if request.n in gaps:
            continue
        if no_write:
            assert request.written == 0, f"request {request.n}: the mock wrote where none is told"
            request = Figures(request.n, request.uncached, request.read, None)
        found.append(request)
    return found


def read_folder(folder: str) -> list[tuple[Path, list[AuditRequest]]]:
    problems: list[Problem] = []
    files = [
        (found.path, list(found.reader.read(found.path, problems.append)))
        for found in find_files([REAL / folder], problems.append)
    ]
    assert problems == []
    return files


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_session_file_holds_the_probes_requests_figure_for_figure(folder: str) -> None:
    files = read_folder(folder)
    # each file is one whole record of the run (the OTel folder has two: events and spans)
    assert files, f"no reader read anything in {folder}"
    for path, requests in files:
        want = expected(folder, path)
        got = [(r.tokens.uncached, r.tokens.read, r.tokens.written) for r in requests]
        assert got == [(f.uncached, f.read, f.written) for f in want], path.name


def test_every_gap_names_a_request_the_probe_answered() -> None:
    assert set(GAPS) | set(NO_WRITE_FIGURE) <= set(FOLDERS)
    for folder, gaps in GAPS.items():
        assert set(gaps) <= {f.n for f in probe_requests(folder)}


def test_the_audit_over_every_folder_holds_each_session_once(tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    ctxconf("audit", REAL, "--json", out)
    doc: dict[str, Any] = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    assert doc["problems"] == []
    held: dict[str, int] = {}
    for session in doc["sessions"]:
        folder = Path(session["timeline"][0]["file"]).relative_to(REAL).parts[0]
        assert folder not in held, f"{folder}: more than one session"
        held[folder] = len(session["timeline"])
    # one session per folder, each request once (Copilot's events and spans of one call are one)
    assert held == {
        folder: len(probe_requests(folder)) - len(GAPS.get(folder, {})) for folder in FOLDERS
    }


CLAUDE_CODE = [folder for folder in FOLDERS if folder.startswith("claude-code-")]


@pytest.mark.parametrize("folder", CLAUDE_CODE)
def test_claude_codes_requests_carry_the_dated_model_and_their_request_id_and_are_priced(
    folder: str, tmp_path: Path
) -> None:
    # The mock answers claude-sonnet-4-5 as the API does, with its dated model and a request
    # id; each request's lines (its thinking block, then its call or text) are one request.
    results = json.loads((REAL / folder / "probe-results.json").read_text())
    ((_, requests),) = read_folder(folder)
    assert {r.model for r in requests} == {"claude-sonnet-4-5-20250929"}
    assert {r.extra.get("requested_model") for r in requests} == {"claude-sonnet-4-5"}
    ids = [r.request_id for r in requests]
    assert all(i is not None and i.startswith("req_011C") for i in ids)
    assert len(set(ids)) == len(ids)
    out = tmp_path / "audit.json"
    ctxconf("audit", REAL / folder, "--json", out)
    figures = json.loads(out.read_text())["figures"]
    assert figures["requests_priced"] == figures["requests"] == len(requests)
    # the probe's own price of the same requests (its cost less the requests the file lacks)
    gaps = GAPS.get(folder, {})
    probe_cost = sum(
        float(r["cost_usd"])
        for session in results["cache"]["sessions"]
        for r in session["requests"]
        if r["n"] not in gaps
    )
    assert figures["cost_usd"] == pytest.approx(probe_cost, abs=1e-6)
