"""`ctxconf fuzz` and what it writes and prints: a finding's file that cannot be written is
refused before any session runs, and an implementation's words reach the terminal with their
control characters shown."""

from __future__ import annotations

import os
import stat
import unicodedata
from pathlib import Path

import pytest

from tests.cli import ctxconf

pytestmark = pytest.mark.slow  # each test starts a fuzzing run

# An implementation that refuses every session with words a terminal would obey.
HOSTILE = '''
def hello():
    return {"protocol": 1, "areas": ["context"],
            "implementation": {"name": "hostile\\x1b]0;owned\\x07", "version": "1",
                               "language": "python"}}

def run(request):
    return {"seq": request["seq"], "error": "no \\x1b[2J\\x1b]52;c;cm0gLXJmIH4=\\x07\\x9b2J"}
'''


def test_a_finding_that_cannot_be_written_is_refused_before_any_session(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "finding.json")
    done = ctxconf("fuzz", "--impl", "reference", "--examples", "1", "--out", "finding.json",
                   cwd=tmp_path, expect=2)  # fmt: skip
    assert "ctxconf fuzz: finding.json: is a FIFO, not a regular file" in done.stderr
    assert "seed" not in done.stdout  # no session ran
    assert stat.S_ISFIFO(os.lstat(tmp_path / "finding.json").st_mode)


def test_a_read_only_folder_for_the_default_reports_is_refused(tmp_path: Path) -> None:
    tmp_path.chmod(0o555)
    try:
        done = ctxconf("fuzz", "--impl", "reference", "--examples", "1", cwd=tmp_path,
                       expect=2, unprivileged=True)  # fmt: skip
    finally:
        tmp_path.chmod(0o755)
    assert "ctxconf fuzz: reports: cannot be written: no permission to make files in the " in (
        done.stderr
    )


def test_the_implementations_words_are_shown_with_their_controls_visible(tmp_path: Path) -> None:
    (tmp_path / "hostile.py").write_text(HOSTILE, encoding="utf-8")
    done = ctxconf("fuzz", "--impl", "python:hostile", "--examples", "5", "--seed", "1",
                   "--out", tmp_path, cwd=tmp_path, expect=1)  # fmt: skip
    printed = done.stdout + done.stderr
    assert [c for c in printed if unicodedata.category(c) == "Cc" and c != "\n"] == []
    assert "(hostile⟨U+001B⟩]0;owned⟨U+0007⟩ 1)" in done.stdout
    assert "error: no ⟨U+001B⟩[2J⟨U+001B⟩]52;c;cm0gLXJmIH4=⟨U+0007⟩⟨U+009B⟩2J" in done.stdout
