"""`ctxconf probe` as a user runs it: exit codes, results files, pages, and one-line errors."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tests.cli import ctxconf
from tests.paths import PROBE_SCHEMAS

from .helpers import fake_profile


def _schema_errors(data: object) -> list[str]:
    schema = json.loads((PROBE_SCHEMAS / "results.schema.json").read_text())
    return [e.message for e in Draft202012Validator(schema).iter_errors(data)]


@pytest.mark.slow
def test_a_clean_harness_exits_0_with_a_results_file_its_schema_accepts(tmp_path: Path) -> None:
    profile = fake_profile(tmp_path, "gemini")
    done = ctxconf(
        "probe", "--harness", profile, "--json", tmp_path / "r.json", "--html", tmp_path / "r.html"
    )
    data = json.loads((tmp_path / "r.json").read_text())
    assert _schema_errors(data) == []
    assert data["harness"]["version"] == "1.0.0"
    assert "0 checks failed" in done.stdout
    assert "fake-gemini" in (tmp_path / "r.html").read_text()
    logs = [Path(p) for p in data["logs"]]
    text = "".join(p.read_text() for p in logs)
    assert "fake-secret-gemini" not in text and "key=REDACTED" in text


@pytest.mark.slow
def test_a_faulty_harness_exits_1_naming_the_failed_check(tmp_path: Path) -> None:
    profile = fake_profile(tmp_path, "responses", ("rewritten-previous",))
    done = ctxconf("probe", "--harness", profile, "--json", tmp_path / "r.json", expect=1)
    assert "fail" in done.stdout and "history-prefix" in done.stdout
    assert "1 check failed" in done.stdout


def test_an_unknown_harness_is_a_usage_error(tmp_path: Path) -> None:
    done = ctxconf("probe", "--harness", "no-such-harness", expect=2)
    assert "no-such-harness: no such harness profile" in done.stderr
    assert "claude-code" in done.stderr


def test_a_profile_that_is_not_yaml_is_named_with_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ndrive: [unclosed\n")
    done = ctxconf("probe", "--harness", bad, expect=2)
    assert done.stderr.count("\n") == 1 and f"{bad}:3:1" in done.stderr


def test_a_profile_against_its_schema_is_named_with_its_place_and_pointer(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "name: x\ndescription: d\napi: openai-chat\ndrive: {mode: per-turn, command: [x]}\n"
    )
    done = ctxconf("probe", "--harness", bad, expect=2)
    # line 4, where the value of `drive` starts
    assert f"{bad}:4:8: at /drive: 'resume' is a required property" in done.stderr


def test_a_broken_scenario_file_is_named_with_a_pointer(tmp_path: Path) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text(
        json.dumps(
            {"name": "s", "description": "d", "turns": [{"user": "u", "steps": [{"jump": 1}]}]}
        )
    )
    done = ctxconf("probe", "--harness", fake_profile(tmp_path), "--scenario", scenario, expect=2)
    assert f"{scenario}: at /turns/0/steps/0" in done.stderr


def _hanging_profile(tmp_path: Path, code: str, **more: object) -> Path:
    """A profile whose harness runs `code` (a process that never answers) for its first turn."""
    profile = {
        "name": "hang",
        "description": "sleeps",
        "api": "openai-chat",
        **more,
        "drive": {
            "mode": "per-turn",
            "command": [sys.executable, "-c", code],
            "resume": [sys.executable, "-c", "pass"],
        },
    }
    path = tmp_path / "hang.yaml"
    path.write_text(json.dumps(profile))
    return path


def test_a_hanging_harness_is_killed_and_its_checks_are_errors(tmp_path: Path) -> None:
    hang = _hanging_profile(tmp_path, "import time; time.sleep(60)", timeout=1)
    done = ctxconf("probe", "--harness", hang, "--json", tmp_path / "r.json", expect=1)
    assert "turn 1 sent no request: the process timed out after" in done.stdout
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["processes"][0]["timed_out"] is True


def test_a_harness_that_is_not_installed_is_a_result_not_a_traceback(tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    missing.write_text(
        json.dumps(
            {
                "name": "missing",
                "description": "absent",
                "api": "anthropic",
                "drive": {
                    "mode": "per-turn",
                    "command": ["no-such-harness-binary"],
                    "resume": ["no-such-harness-binary"],
                },
            }
        )
    )
    done = ctxconf("probe", "--harness", missing, "--json", tmp_path / "r.json", expect=1)
    assert "cannot start no-such-harness-binary" in done.stdout


@pytest.mark.slow
def test_the_matrix_names_each_harness_its_version_and_date(tmp_path: Path) -> None:
    for shape, faults in (("chat", ()), ("anthropic", ("ignore-usage",))):
        profile = fake_profile(tmp_path, shape, faults)
        ctxconf("probe", "--harness", profile, "--json", tmp_path / f"{shape}.json", expect=None)
    ctxconf(
        "probe",
        "--matrix",
        tmp_path / "chat.json",
        tmp_path / "anthropic.json",
        "--html",
        tmp_path / "m.html",
        "--markdown",
        tmp_path / "m.md",
    )
    markdown = (tmp_path / "m.md").read_text()
    rows = [line for line in markdown.splitlines() if line.startswith("| fake-")]
    assert [r.split(" | ")[0] for r in rows] == ["| fake-anthropic", "| fake-chat"]
    assert all(" | 1.0.0 | " in r for r in rows)
    assert "❌" in rows[0] and "pfx.usage.shown" in markdown
    page = (tmp_path / "m.html").read_text()
    assert "fake-chat" in page and page.count("<script") == 1  # its own sorting alone


def test_a_matrix_of_a_file_that_is_not_results_is_a_usage_error(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"format": "something else"}')
    done = ctxconf("probe", "--matrix", other, expect=2)
    assert str(other) in done.stderr and "at /" in done.stderr


def test_list_names_the_bundled_harnesses_and_scenarios() -> None:
    done = ctxconf("probe", "--list")
    assert "midnight" in done.stdout and "two-days" in done.stdout


def test_an_interrupted_probe_exits_130_and_leaves_no_harness_running(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    code = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    hang = _hanging_profile(tmp_path, code)
    probe = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ctxconf",
            "probe",
            "--harness",
            str(hang),
            "--json",
            str(tmp_path / "r.json"),
        ]
    )
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the harness never started"
        time.sleep(0.1)
    probe.send_signal(signal.SIGINT)
    assert probe.wait(timeout=30) == 130
    harness = Path(f"/proc/{pid_file.read_text()}")
    for _ in range(50):  # a killed process may take a moment to be reaped
        if not harness.exists():
            break
        time.sleep(0.1)
    assert not harness.exists(), "the harness still runs"


def test_a_provider_that_does_not_serve_the_harnesss_shape_is_refused_before_it_runs(
    tmp_path: Path,
) -> None:
    profile = fake_profile(tmp_path, "gemini")
    done = ctxconf("probe", "--harness", profile, "--provider", "openai", expect=2)
    assert "provider 'openai' serves openai-chat, openai-responses, not the gemini" in done.stderr
    assert not (tmp_path / "logs").exists()


def _missing_profile(folder: Path) -> Path:
    """A profile whose harness is not installed: a results file in a moment, no harness run."""
    profile = folder / "own-harness.yaml"
    drive = {"mode": "per-turn", "command": ["no-such-harness-binary"], "resume": ["x"]}
    profile.write_text(json.dumps({"name": "missing", "description": "absent", "api": "anthropic",
                                   "drive": drive}))  # fmt: skip
    return profile


def test_one_probe_names_its_files_as_a_batch_does_under_reports(tmp_path: Path) -> None:
    profile = _missing_profile(tmp_path)
    ctxconf("probe", "--harness", profile, "--scenario", "midnight", cwd=tmp_path, expect=1)
    written = sorted(p.name for p in (tmp_path / "reports").iterdir() if p.is_file())
    assert written == ["own-harness-midnight.html", "own-harness-midnight.json"]
    data = json.loads((tmp_path / "reports" / "own-harness-midnight.json").read_text())
    assert data["harness"]["name"] == "missing"  # the file is named as the command line named it


def test_one_probe_writes_under_out(tmp_path: Path) -> None:
    profile = _missing_profile(tmp_path)
    ctxconf("probe", "--harness", profile, "--out", tmp_path / "out", cwd=tmp_path, expect=1)
    assert (tmp_path / "out" / "own-harness-basic.json").is_file()
    assert (tmp_path / "out" / "own-harness-basic.html").is_file()
    assert not (tmp_path / "reports").exists()


def test_out_and_a_file_of_one_probe_are_one_or_the_other(tmp_path: Path) -> None:
    profile = _missing_profile(tmp_path)
    done = ctxconf("probe", "--harness", profile, "--out", tmp_path / "out", "--json",
                   tmp_path / "r.json", expect=2)  # fmt: skip
    assert "--out names a folder" in done.stderr and done.stderr.count("\n") <= 2
    assert not (tmp_path / "out").exists() and not (tmp_path / "r.json").exists()
