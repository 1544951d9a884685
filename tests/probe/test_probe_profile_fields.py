"""The profile fields that say what a harness needs (`tools`, `session_id`, `setup`, a usage
file under the home or by glob, `install`, `notes`): a good profile loads, a bad one is refused
with its file and the line:column of the value at fault."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxconf.probe.errors import ProbeDataError
from ctxconf.probe.profile import load_profile
from ctxconf.probe.usage_file import usage_file

HEAD = """name: own
description: a harness with needs of its own
api: openai-chat
"""
DRIVE = """drive:
  mode: per-turn
  command: [own, run, "{message}"]
  resume: [own, run, --session, "{last_session_id}", "{message}"]
"""
GOOD = (
    HEAD
    + """install: {pypi: own-harness, python: "3.12"}
notes: Resumed by id only.
"""
    + DRIVE
    + """tools:
  read: {name: read_files, arguments: {files: [{path: "{path}"}]}}
  bash: {name: execute, arguments: {language: shell, code: "{command}", timeout: 30.0}}
session_id: {pattern: '"session_id": "([^"]+)"'}
setup: [own, login, --local]
usage_output: {key: usage.cached, file: "{home}/.own/sessions/*/usage.json"}
"""
)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "own.yaml"
    path.write_text(text)
    return path


def _place(path: Path, text: str, needle: str) -> str:
    """`file:line:column` of the first `needle` in `text`, as the error should name it."""
    at = text.index(needle)
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return f"{path}:{line}:{column}"


def _refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(ProbeDataError) as caught:
        load_profile(str(_write(tmp_path, text)))
    return str(caught.value)


def test_a_profile_with_every_new_field_loads(tmp_path: Path) -> None:
    profile = load_profile(str(_write(tmp_path, GOOD)))
    assert profile.tools["read"].name == "read_files"
    assert profile.tools["bash"].call({"command": "ls"}) == {
        "language": "shell",
        "code": "ls",
        "timeout": 30,
    }
    assert profile.session_id is not None
    assert profile.session_id.find('{"session_id": "abc"}', "") == "abc"
    assert profile.setup == ("own", "login", "--local")
    assert profile.install == {"pypi": "own-harness", "python": "3.12"}
    assert profile.notes == "Resumed by id only."


def _refused_at(tmp_path: Path, base: str, old: str, new: str, needle: str, problem: str) -> None:
    """`base` with `old` replaced by `new` is refused with `problem`, placed where `needle` is."""
    assert old in base
    text = base.replace(old, new)
    message = _refused(tmp_path, text)
    expected = f"{_place(tmp_path / 'own.yaml', text, needle)}: {problem}"
    assert any(line.strip().startswith(expected) for line in message.splitlines()), message


@pytest.mark.parametrize(
    ("old", "new", "needle", "problem"),
    [
        (
            '{path: "{path}"}',
            '{path: "{file}"}',
            '"{file}"',
            "at /tools/read/arguments/files/0/path: {file} is not a placeholder of a read step",
        ),
        (
            'code: "{command}"',
            "code: ls",
            "{language: shell",
            "at /tools/bash/arguments: the arguments of a bash step must hold {command}",
        ),
        (
            "  bash: {name: execute",
            "  edit: {name: execute",
            "edit: {name",
            "at /tools/edit: unknown key 'edit' (known: read, bash)",
        ),
        (
            """'"session_id": "([^"]+)"'""",
            "'(unclosed'",
            "'(unclosed'",
            "at /session_id/pattern: not a regular expression: missing ), unterminated subpattern",
        ),
        (
            """'"session_id": "([^"]+)"'""",
            "'(a)(b)'",
            "'(a)(b)'",
            "at /session_id/pattern: 2 groups: the id is the one group, or the whole match",
        ),
        (
            'command: [own, run, "{message}"]',
            'command: [own, run, "{last_session_id}"]',
            '"{last_session_id}"]\n  resume',
            "at /drive/command/2: {last_session_id} in the first command",
        ),
        (
            'session_id: {pattern: \'"session_id": "([^"]+)"\'}\n',
            "",
            '"{last_session_id}"',
            "at /drive/resume/3: {last_session_id} needs `session_id`",
        ),
        (
            "setup: [own, login, --local]",
            "setup: own login",
            "own login",
            "at /setup: 'own login' is not of type 'array'",
        ),
        (
            'file: "{home}/.own/sessions/*/usage.json"',
            "file: /etc/own/usage.json",
            "/etc/own",
            "at /usage_output/file: '/etc/own/usage.json' does not match",
        ),
        (
            'file: "{home}/.own/sessions/*/usage.json"',
            "file: ../home/usage.json",
            "../home",
            "at /usage_output/file: '../home/usage.json' does not match",
        ),
    ],
    ids=[
        "unknown-placeholder",
        "no-command",
        "not-a-step",
        "bad-regex",
        "two-groups",
        "id-in-first-command",
        "id-without-session-id",
        "setup-not-argv",
        "usage-file-absolute",
        "usage-file-up",
    ],
)
def test_a_bad_field_is_named_at_its_line_and_column(
    tmp_path: Path, old: str, new: str, needle: str, problem: str
) -> None:
    _refused_at(tmp_path, GOOD, old, new, needle, problem)


def test_a_usage_file_is_found_under_the_home_by_glob_the_latest_written(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    old, new = home / "s" / "a" / "u.json", home / "s" / "b" / "u.json"
    for path, when in ((old, 1_000_000_000), (new, 2_000_000_000)):
        path.parent.mkdir(parents=True)
        path.write_text("{}")
        os.utime(path, ns=(when, when))
    (work / "t.json").parent.mkdir(parents=True)
    (work / "t.json").write_text("{}")
    assert usage_file("{home}/s/*/u.json", home, work) == new
    assert usage_file("{home}/**/u.json", home, work) == new
    assert usage_file("t.json", home, work) == work / "t.json"
    assert usage_file("{work}/t.json", home, work) == work / "t.json"
    assert usage_file("{home}/s/*/none.json", home, work) is None
    assert usage_file("missing.json", home, work) is None


MERGE = (
    HEAD
    + """files:
  work/own.json: |
    {"provider": {"url": "{base_url}/v1"}, "mcp": {"kept": {"command": ["old"]}}}
drive:
  mode: per-turn
  command: [own, run, "{message}"]
  resume: [own, run, --continue, "{message}"]
mcp:
  file: work/own.json
  merge: {mcp: {"{mcp_name}": {command: ["{mcp_command}", "{mcp_args}"]}}}
"""
)


def test_an_mcp_merge_loads_as_data(tmp_path: Path) -> None:
    profile = load_profile(str(_write(tmp_path, MERGE)))
    assert profile.mcp is not None
    assert profile.mcp.file == "work/own.json"
    server = {"command": ["{mcp_command}", "{mcp_args}"]}
    assert profile.mcp.merge == {"mcp": {"{mcp_name}": server}}
    assert profile.mcp.content == ""


@pytest.mark.parametrize(
    ("old", "new", "needle", "problem"),
    [
        (
            '  merge: {mcp: {"{mcp_name}"',
            '  content: "[x]"\n  merge: {mcp: {"{mcp_name}"',
            '{mcp: {"{mcp_name}"',
            "at /mcp/merge: both content and merge",
        ),
        (
            '  merge: {mcp: {"{mcp_name}": {command: ["{mcp_command}", "{mcp_args}"]}}}\n',
            "  args: [--mcp, x]\n",
            "work/own.json\n  args",
            "at /mcp/file: a file needs its content (appended) or a merge (merged into it)",
        ),
        (
            '"mcp": {"kept"',
            '"mcp" {"kept"',
            "|\n",
            "at /files/work~1own.json: mcp.merge goes into this file, which is not JSON:"
            " Expecting ':' delimiter",
        ),
        (
            "  file: work/own.json\n",
            "",
            "merge: {mcp: {",
            "at /mcp: 'file' is a dependency of 'merge'",
        ),
        (
            '  merge: {mcp: {"{mcp_name}": {command: ["{mcp_command}", "{mcp_args}"]}}}',
            '  merge: ["{mcp_command}"]',
            '["{mcp_command}"]',
            "at /mcp/merge: ['{mcp_command}'] is not of type 'object'",
        ),
    ],
    ids=["content-and-merge", "file-alone", "file-not-json", "merge-without-file", "merge-a-list"],
)
def test_a_bad_mcp_merge_is_named_at_its_line_and_column(
    tmp_path: Path, old: str, new: str, needle: str, problem: str
) -> None:
    _refused_at(tmp_path, MERGE, old, new, needle, problem)


def test_a_yaml_file_a_merge_goes_into_must_hold_a_mapping(tmp_path: Path) -> None:
    text = MERGE.replace("work/own.json", "work/own.yaml").replace(
        '    {"provider": {"url": "{base_url}/v1"}, "mcp": {"kept": {"command": ["old"]}}}',
        "    - one\n    - two",
    )
    message = _refused(tmp_path, text)
    place = _place(tmp_path / "own.yaml", text, "|\n")
    assert message.startswith(
        f"{place}: at /files/work~1own.yaml: mcp.merge goes into this file, which is YAML"
        " holding a list, not a mapping"
    ), message
