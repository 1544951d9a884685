"""What an implementation writes reaches the terminal with its control characters shown, never
obeyed: its stderr under a failing case, its error message, its stderr when it fails to start,
and the case names of a results file someone else wrote. The files keep what it sent."""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import pytest

from ctxconf.runner.results import load
from tests.cli import Done, ctxconf
from tests.paths import FAUX

pytestmark = pytest.mark.slow  # each test runs ctxconf against a process or twice

FEW = ["-k", "stub.unchanged"]  # the broken case is the second one sent


def _obeyed(done: Done) -> list[str]:
    """The control characters a terminal would act on in what the command printed."""
    printed = done.stdout + done.stderr
    return sorted(
        {f"U+{ord(c):04X}" for c in printed if unicodedata.category(c) == "Cc"} - {"U+000A"}
    )


def test_a_failing_cases_stderr_is_shown_with_its_controls_visible(tmp_path: Path) -> None:
    impl = f"cmd:{sys.executable} {FAUX / 'hostile_stderr.py'}"
    done = ctxconf("run", "--impl", impl, *FEW, "--json", "r.json", "--junit", "j.xml",
                   cwd=tmp_path, expect=1)  # fmt: skip
    assert _obeyed(done) == [], done
    assert "  | hostile_stderr: ⟨U+001B⟩[2J⟨U+001B⟩]0;owned⟨U+0007⟩" in done.stdout
    assert "⟨U+001B⟩]52;c;cm0gLXJmIH4=⟨U+0007⟩⟨U+009B⟩2J" in done.stdout
    # The results keep what the implementation wrote; only the terminal is spared it.
    (broken,) = [case for case in load(tmp_path / "r.json").cases if case.verdict == "crash"]
    assert "\x1b]52;c;" in broken.stderr
    assert "\x1b" not in (tmp_path / "j.xml").read_text(encoding="utf-8")


def test_an_error_message_quoting_the_answer_is_shown_with_its_controls_visible(
    tmp_path: Path,
) -> None:
    impl = f"cmd:{sys.executable} {FAUX / 'hostile_error.py'}"
    done = ctxconf("run", "--impl", impl, *FEW, "--json", "r.json", cwd=tmp_path, expect=1)
    assert _obeyed(done) == [], done
    assert (
        "the implementation answered with an error: refused ⟨U+001B⟩[2J⟨U+001B⟩]0;owned⟨U+0007⟩"
        "⟨U+001B⟩]52;c;cm0gLXJmIH4=⟨U+0007⟩⟨U+009B⟩2J"
    ) in done.stdout
    (broken,) = [case for case in load(tmp_path / "r.json").cases if case.verdict == "error"]
    assert broken.message.startswith("the implementation answered with an error: refused \x1b")


def test_the_stderr_of_an_implementation_that_does_not_start_is_shown_the_same_way(
    tmp_path: Path,
) -> None:
    impl = f"cmd:{sys.executable} {FAUX / 'hostile_stderr_on_start.py'}"
    done = ctxconf("run", "--impl", impl, *FEW, cwd=tmp_path, expect=2)
    assert _obeyed(done) == [], done
    assert "hostile_stderr_on_start: ⟨U+001B⟩[2J⟨U+001B⟩]52;c;cm0gLXJmIH4=⟨U+0007⟩⟨U+009B⟩2J" in (
        done.stderr
    )


def test_case_names_of_compared_results_are_shown_with_their_controls_visible(
    tmp_path: Path,
) -> None:
    ctxconf("run", "--impl", "reference", *FEW, "--json", "old.json", cwd=tmp_path)
    data = json.loads((tmp_path / "old.json").read_text(encoding="utf-8"))
    data["cases"][0]["name"] = "\x1b]0;owned\x07renamed"
    data["cases"][0]["verdict"] = "fail"
    (tmp_path / "new.json").write_text(json.dumps(data), encoding="utf-8")
    done = ctxconf("report", "new.json", "--compare", "old.json", cwd=tmp_path)
    assert _obeyed(done) == [], done
    assert "context/⟨U+001B⟩]0;owned⟨U+0007⟩renamed" in done.stdout
