"""`ctxconf probe` and what it writes and prints: an output that is not a regular file is refused
before any harness starts, and a harness's own output (its version, its stderr) reaches the
terminal with its control characters shown."""

from __future__ import annotations

import json
import os
import stat
import sys
import unicodedata
from pathlib import Path

import pytest

from tests.cli import ctxconf

pytestmark = pytest.mark.slow  # each test starts the probe, one plays a harness through it

SEQUENCES = "\\x1b[2J\\x1b]0;owned\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07\\x9b2J"
SHOWN = "⟨U+001B⟩[2J⟨U+001B⟩]0;owned⟨U+0007⟩⟨U+001B⟩]52;c;cm0gLXJmIH4=⟨U+0007⟩⟨U+009B⟩2J"


def _profile(folder: Path, code: str, version: str = "print('1.0')") -> Path:
    """A profile whose harness runs `code` for every turn."""
    command = [sys.executable, "-c", code]
    profile = {
        "name": "hostile",
        "description": "writes what a terminal would obey",
        "api": "openai-chat",
        "version_command": [sys.executable, "-c", version],
        "drive": {"mode": "per-turn", "command": command, "resume": command},
        "timeout": 30,
    }
    path = folder / "hostile.yaml"
    path.write_text(json.dumps(profile), encoding="utf-8")  # JSON is YAML
    return path


def test_an_output_that_is_not_a_regular_file_is_refused_before_the_harness(
    tmp_path: Path,
) -> None:
    started = tmp_path / "started"
    profile = _profile(tmp_path, f"open({str(started)!r}, 'w')")
    os.mkfifo(tmp_path / "r.json")
    done = ctxconf("probe", "--harness", profile, "--json", "r.json", cwd=tmp_path, expect=2)
    assert "ctxconf probe: r.json: is a FIFO, not a regular file" in done.stderr
    assert stat.S_ISFIFO(os.lstat(tmp_path / "r.json").st_mode)
    assert not started.exists()
    same = ctxconf("probe", "--harness", profile, "--json", "p", "--html", "p", cwd=tmp_path,
                   expect=2)  # fmt: skip
    assert "ctxconf probe: --html and --json name one file, p" in same.stderr
    assert not started.exists()


def test_a_harnesss_output_is_shown_with_its_controls_visible(tmp_path: Path) -> None:
    code = f"import sys; sys.stderr.write('gave up {SEQUENCES}\\n'); sys.exit(3)"
    # A version line with no number in it is shown whole.
    profile = _profile(tmp_path, code, version=f"print('nightly {SEQUENCES}')")
    done = ctxconf("probe", "--harness", profile, "--json", "r.json", cwd=tmp_path, expect=1)
    printed = done.stdout + done.stderr
    assert [c for c in printed if unicodedata.category(c) == "Cc" and c != "\n"] == [], done
    assert "exited 3 after" in done.stdout and f"stderr: gave up {SHOWN}" in done.stdout, done
    assert f"hostile (nightly {SHOWN})" in done.stdout
