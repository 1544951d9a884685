"""Honest wording: a resume that started a new session says so, a failed version command is no
version, and a harness that is not installed is one line with one reason."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ctxconf.probe.harness import harness_version
from ctxconf.probe.profile import load_profile
from tests.cli import ctxconf

from .helpers import checks_of, fake_profile, run_fake


@pytest.mark.slow
def test_a_resume_that_started_a_new_session_says_so_not_a_rewrite(tmp_path: Path) -> None:
    checks = checks_of(run_fake(tmp_path, "anthropic", variant="forgets_on_resume"))
    prefix = checks["history-prefix"]
    assert prefix.verdict == "error"
    assert prefix.summary.startswith("the resume of turn 2 started a new session")
    assert "rewrote" not in prefix.summary


def _profile_with_version(tmp_path: Path, code: str) -> Path:
    script = tmp_path / "version.py"
    script.write_text(code)
    path = fake_profile(tmp_path)
    profile = json.loads(path.read_text())
    profile["version_command"] = [sys.executable, str(script)]
    path.write_text(json.dumps(profile))
    return path


def test_a_version_command_that_fails_is_no_version(tmp_path: Path) -> None:
    code = "import sys\nprint('usage: smolagent [-h] [--model-type TYPE]')\nsys.exit(2)\n"
    profile = load_profile(str(_profile_with_version(tmp_path, code)))
    version = harness_version(profile, [])
    assert version is not None and version.startswith("unknown (python")
    assert version.endswith("version.py exited 2)") and "usage" not in version
    printed = load_profile(str(_profile_with_version(tmp_path, "print('fake 2.4.6')")))
    assert harness_version(printed, []) == "2.4.6"


@pytest.mark.slow
def test_a_harness_that_is_not_installed_is_one_line_with_one_reason(tmp_path: Path) -> None:
    path = fake_profile(tmp_path)
    profile = json.loads(path.read_text())
    profile["drive"] = {
        "mode": "per-turn",
        "command": ["no-such-harness-binary", "{message}"],
        "resume": ["no-such-harness-binary", "--continue", "{message}"],
    }
    profile["version_command"] = ["no-such-harness-binary", "--version"]
    path.write_text(json.dumps(profile))
    done = ctxconf("probe", "--harness", path, "--json", tmp_path / "r.json", expect=1)
    assert done.stdout.splitlines() == [
        "fake-chat: not installed: cannot start no-such-harness-binary: not found on its PATH"
    ]
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["not_installed"] and {c["verdict"] for c in data["checks"]} <= {
        "error",
        "not-testable",
    }
