"""A profile a person wrote is refused with every mistake at once, each at its own line:column:
a key the schema does not know at the key itself, with the known key nearest to it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxconf.probe.errors import ProbeDataError
from ctxconf.probe.profile import load_profile
from ctxconf.probe.schemas import MAX_LISTED
from tests.cli import ctxconf

GOOD = """name: own
description: a harness of one's own
api: openai-chat
version_command: [own, --version]
env:
  OPENAI_BASE_URL: "{base_url}/v1"
  OPENAI_API_KEY: dummy
drive:
  mode: per-turn
  command: [own, run, "{message}"]
  resume: [own, run, --continue, "{message}"]
usage_output: {key: usage.cached_tokens}
instructions_file: AGENTS.md
tools:
  read: {name: read_file, arguments: {path: "{path}"}}
"""


def _refused(tmp_path: Path, text: str) -> list[str]:
    """The lines of the refusal of `text` as a profile file: its name as FILE in a heading,
    left out before a line:column."""
    path = tmp_path / "own.yaml"
    path.write_text(text)
    with pytest.raises(ProbeDataError) as caught:
        load_profile(str(path))
    return str(caught.value).replace(f"{path}: ", "FILE: ").replace(f"{path}:", "").splitlines()


def _typo(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)


def test_the_profile_without_a_mistake_loads(tmp_path: Path) -> None:
    (tmp_path / "own.yaml").write_text(GOOD)
    assert load_profile(str(tmp_path / "own.yaml")).instructions_file == "AGENTS.md"


def test_a_mistyped_top_level_key_is_named_at_its_own_line_with_the_key_it_is_near(
    tmp_path: Path,
) -> None:
    lines = _refused(tmp_path, _typo("instructions_file:", "instructions_fle:"))
    assert lines == [
        "13:1: at /instructions_fle: unknown key 'instructions_fle'; "
        "did you mean 'instructions_file'?"
    ]


def test_a_mistyped_nested_key_is_named_at_itself_not_at_its_parent(tmp_path: Path) -> None:
    # `resume` is required in per-turn, yet the one mistake is the typo, named once.
    lines = _refused(tmp_path, _typo("  resume:", "  resmue:"))
    assert lines == ["11:3: at /drive/resmue: unknown key 'resmue'; did you mean 'resume'?"]


def test_a_key_whose_value_starts_on_a_later_line_is_named_at_the_key(tmp_path: Path) -> None:
    text = _typo("usage_output: {key: usage.cached_tokens}", "usage_ouput:\n  key: usage")
    assert _refused(tmp_path, text) == [
        "12:1: at /usage_ouput: unknown key 'usage_ouput'; did you mean 'usage_output'?"
    ]


def test_a_mistyped_kind_of_step_under_tools_is_named_at_itself(tmp_path: Path) -> None:
    lines = _refused(tmp_path, _typo("  read: {name", "  raed: {name"))
    assert lines == ["15:3: at /tools/raed: unknown key 'raed'; did you mean 'read'?"]


def test_a_key_near_no_known_one_is_said_unknown_alone(tmp_path: Path) -> None:
    lines = _refused(tmp_path, GOOD + "zzz: 1\n")
    assert lines == ["16:1: at /zzz: unknown key 'zzz'"]


def test_every_mistake_is_listed_in_the_order_of_the_file(tmp_path: Path) -> None:
    text = _typo("instructions_file:", "instructions_fle:").replace("  resume:", "  resmue:")
    lines = _refused(tmp_path, text)
    assert lines[0] == "FILE: 2 problems"
    assert [line.split(": at ")[0].strip() for line in lines[1:]] == ["11:3", "13:1"]
    assert not any("more)" in line for line in lines)


def test_past_ten_mistakes_the_rest_are_counted(tmp_path: Path) -> None:
    extra = "".join(f"unknown_{n}: 1\n" for n in range(MAX_LISTED + 2))
    lines = _refused(tmp_path, GOOD + extra)
    assert lines[0] == f"FILE: {MAX_LISTED + 2} problems"
    assert len(lines) == 1 + MAX_LISTED + 1 and lines[-1].strip() == "(and 2 more)"


def test_the_rules_past_the_schema_are_listed_together_too(tmp_path: Path) -> None:
    text = _typo('{path: "{path}"}', '{path: "{file}"}') + "setup: [own, '{last_session_id}']\n"
    lines = _refused(tmp_path, text)
    assert lines[0] == "FILE: 3 problems", lines
    assert [line.split(": at ")[1].split(":")[0] for line in lines[1:]] == [
        "/tools/read/arguments",
        "/tools/read/arguments/path",
        "/setup/1",
    ]


def test_the_command_prints_every_mistake_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "own.yaml"
    path.write_text(_typo("instructions_file:", "instructions_fle:").replace("resume:", "resmue:"))
    done = ctxconf("probe", "--harness", path, expect=2)
    assert done.stderr.splitlines() == [
        f"ctxconf probe: {path}: 2 problems",
        f"  {path}:11:3: at /drive/resmue: unknown key 'resmue'; did you mean 'resume'?",
        f"  {path}:13:1: at /instructions_fle: unknown key 'instructions_fle'; "
        "did you mean 'instructions_file'?",
    ]
