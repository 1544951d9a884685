"""`ctxconf --help` says what the tool is for, where the docs are, and lists every command."""

from __future__ import annotations

import re

from ctxconf.cli import COMMANDS
from tests.cli import ctxconf
from tests.paths import ROOT

DOCS = ("README.md", "docs/running.md", "docs/spec-editors.md")


def test_help_opens_with_the_purpose_points_at_the_docs_and_lists_the_commands() -> None:
    done = ctxconf("--help")
    usage, opening = done.stdout.split("\n\n")[:2]
    assert usage.startswith("usage: ctxconf"), done
    assert "context hygiene" in opening and "harness" in opening, done
    assert len(re.findall(r"[.!?](?:\s|$)", opening)) <= 2, "one or two sentences"
    for doc in DOCS:
        assert doc in done.stdout, f"--help does not point at {doc}\n{done}"
        assert (ROOT / doc).is_file(), f"--help points at {doc}, which is missing"
    for name, summary in COMMANDS.items():
        assert re.search(rf"^\s+{re.escape(name)}\s+{re.escape(summary[:30])}", done.stdout, re.M)


def test_no_command_prints_the_help_and_exits_2() -> None:
    done = ctxconf(expect=2)
    assert done.stdout == ""
    assert done.stderr == ctxconf("--help").stdout
