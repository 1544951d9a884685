"""`ctxconf probe` with several harnesses or scenarios: each pair in a process of its own, `--jobs`
at a time, its files in `--out`; a broken profile refused before any harness starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxconf.probe.batch import Pair, pairs
from ctxconf.probe.errors import ProbeDataError
from tests.cli import ctxconf

from .helpers import fake_profile


def test_every_harness_goes_with_every_scenario() -> None:
    assert pairs(["a", "b"], ["basic", "midnight"]) == [
        Pair("a", "basic"), Pair("a", "midnight"), Pair("b", "basic"), Pair("b", "midnight"),
    ]  # fmt: skip


def test_two_pairs_that_would_write_one_file_are_refused() -> None:
    with pytest.raises(ProbeDataError, match="would write the same files"):
        pairs(["x/fake.yaml", "y/fake.yaml"], ["basic"])


@pytest.mark.slow  # starts four probes, each with its fake harness and mock
def test_two_jobs_probe_each_pair_into_its_own_files(tmp_path: Path) -> None:
    clean = fake_profile(tmp_path, "chat")
    faulty = fake_profile(tmp_path, "responses", ("rewritten-previous",))
    faulty = faulty.rename(faulty.with_name("faulty.yaml"))
    done = ctxconf(
        "probe", "--harness", clean, "--harness", faulty, "--scenario", "basic",
        "--scenario", "two-days", "--jobs", "2", "--out", tmp_path / "out", expect=1,
    )  # fmt: skip
    stems = sorted(p.stem for p in (tmp_path / "out").glob("*.json"))
    assert stems == [
        f"{clean.stem}-basic", f"{clean.stem}-two-days", "faulty-basic", "faulty-two-days",
    ], done  # fmt: skip
    for stem in stems:
        assert (tmp_path / "out" / f"{stem}.html").is_file()
        assert (tmp_path / "out" / f"{stem}.txt").read_text().strip()
    verdicts = {
        stem: {c["id"]: c["verdict"] for c in json.loads((tmp_path / "out" / f"{stem}.json")
               .read_text())["checks"]}
        for stem in stems
    }  # fmt: skip
    assert verdicts["faulty-basic"]["history-prefix"] == "fail"
    assert verdicts[f"{clean.stem}-basic"]["history-prefix"] == "pass"
    assert done.stdout.count("] ") == 4 and "[4/4]" in done.stdout


@pytest.mark.parametrize("jobs", ["0", "-1"])
def test_fewer_than_one_job_is_refused_before_any_harness_starts(tmp_path: Path, jobs: str) -> None:
    done = ctxconf("probe", "--harness", "pi", "--jobs", jobs, "--out", tmp_path / "out", expect=2)
    assert f"--jobs {jobs}: give at least 1" in done.stderr
    assert not (tmp_path / "out").exists()


def test_a_broken_profile_is_refused_before_any_harness_starts(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ndrive: [unclosed\n")
    done = ctxconf(
        "probe", "--harness", "pi", "--harness", bad, "--jobs", "2", "--out", tmp_path / "out",
        expect=2,
    )  # fmt: skip
    assert f"{bad}:3:1" in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "pairs_asked",
    [
        ["--harness", "pi", "--harness", "codex"],
        ["--harness", "pi", "--scenario", "basic", "--scenario", "midnight"],
        ["--harness", "pi", "--scenario", "all"],
        ["--harness", "pi", "--jobs", "2"],
    ],
    ids=["two-harnesses", "two-scenarios", "all-scenarios", "jobs"],
)
def test_one_probes_files_cannot_name_a_batchs(tmp_path: Path, pairs_asked: list[str]) -> None:
    done = ctxconf("probe", *pairs_asked, "--json", tmp_path / "r.json", expect=2)
    assert "with several, give --out DIR" in done.stderr
    assert not (tmp_path / "r.json").exists()
