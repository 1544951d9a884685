"""`ctxconf probe --record-proxy DIR`: the fakes of the four API shapes played through the real
proxy put in front of each session's mock. The bodies the record holds are the bytes the mock
received (the sha256 of the bytes forwarded is the mock's of the bytes read), and `ctxconf
audit DIR` gives, request by request, the read, written and uncached tokens of the probe's own
results; tools/proxy_agreement.py says so of a run, and says where a run does not agree."""

from __future__ import annotations

import importlib.util
import io
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ctxconf.cache import bundled_prices
from ctxconf.probe import usage_figures
from ctxconf.probe.harness import ProbeRun
from ctxconf.proxy import Options, ProxyThread, read_record
from tests.cli import ctxconf
from tests.paths import ROOT

from .helpers import fake_profile, run_fake


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


AGREEMENT = _tool("proxy_agreement")  # the figures read as the tool reads them


def recording(folder: Path) -> Any:
    @contextmanager
    def front(mock_url: str) -> Iterator[str]:
        with ProxyThread(Options(mock_url, folder), io.StringIO()) as running:
            yield running.url

    return front


def _exchanges(folder: Path) -> list[dict[str, Any]]:
    found = []
    for path in sorted(folder.glob("proxy-*.jsonl")):
        read = read_record(path)
        assert not read.torn and read.lines[-1]["kind"] == "end"
        found += [line for line in read.lines if line["kind"] == "exchange"]
    return found


def probe_figures(run: ProbeRun) -> list[tuple[int, int, int]]:
    """The probe's own results, `cache.sessions[].requests[]`: (read, written, uncached) of each
    request the mock answered with figures, in order."""
    figures = [f for s in run.sessions for f in usage_figures.session_figures(s, bundled_prices())]
    rows = [r for s in usage_figures.to_data(figures)["sessions"] for r in s["requests"]]
    return [(r["cache_read"], r["cache_write"], r["uncached"]) for r in rows if r["input_total"]]


def audit_figures(folder: Path, tmp_path: Path) -> list[tuple[int, int, int]]:
    """`ctxconf audit DIR`'s requests, in the order sent: (read, written, uncached)."""
    out = tmp_path / "audit.json"
    ctxconf("audit", folder, "--json", out)
    return AGREEMENT.figures_of_audit(json.loads(out.read_text(encoding="utf-8")))


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["anthropic", "chat", "responses", "gemini"])
def test_the_record_holds_what_the_mock_read_and_the_audit_gives_the_probe_s_figures(
    tmp_path: Path, shape: str
) -> None:
    folder = tmp_path / "record"
    run = run_fake(tmp_path / "probe", shape, front=recording(folder))
    assert len(list(folder.glob("proxy-*.jsonl"))) == len(run.sessions)
    received = Counter(
        e["sha256"] for s in run.sessions for e in s.entries if e.get("method") == "POST"
    )
    lines = [line for line in _exchanges(folder) if line["method"] == "POST"]
    for line in lines:
        request = line["request"]
        assert request["sha256_received"] == request["sha256_forwarded"]
        assert line["outcome"] == "complete"
    assert Counter(line["request"]["sha256_forwarded"] for line in lines) == received
    probe = probe_figures(run)
    assert len(probe) > 2
    assert audit_figures(folder, tmp_path) == probe


@pytest.mark.slow
def test_the_command_records_through_the_proxy(tmp_path: Path) -> None:
    profile = fake_profile(tmp_path, "anthropic")
    folder = tmp_path / "record"
    ctxconf("probe", "--harness", profile, "--json", tmp_path / "r.json",
            "--record-proxy", folder)  # fmt: skip
    results = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    requests = [r for s in results["cache"]["sessions"] for r in s["requests"]]
    assert len(_exchanges(folder)) >= len(requests) > 0
    assert [r["cache_read"] for r in requests] == [f[0] for f in audit_figures(folder, tmp_path)]
    agreed = _agreement(tmp_path / "r.json", folder)
    assert agreed.returncode == 0, agreed.stdout + agreed.stderr
    assert "the audit's read, written and uncached tokens are the probe's" in agreed.stdout
    # Its failing twins: a byte changed on the way, and a probe whose figures are not the record's.
    (record,) = folder.glob("proxy-*.jsonl")
    text = record.read_text(encoding="utf-8")
    first = json.loads(text.splitlines()[1])["request"]["sha256_forwarded"]
    record.write_text(text.replace(first, "0" * 64, 1), encoding="utf-8")
    altered = _agreement(tmp_path / "r.json", folder)
    assert altered.returncode == 1 and "bytes changed on the way in exchanges [1]" in altered.stdout
    record.write_text(text, encoding="utf-8")
    requests[0]["cache_read"] += 1
    (tmp_path / "other.json").write_text(json.dumps(results), encoding="utf-8")
    differ = _agreement(tmp_path / "other.json", folder)
    assert differ.returncode == 1 and "the audit's figures differ" in differ.stdout


def _agreement(results: Path, record: Path) -> subprocess.CompletedProcess[str]:
    tool = ROOT / "tools" / "proxy_agreement.py"
    command = [sys.executable, str(tool), str(results), str(record)]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
