"""docs/ci.md's recipes install the ctxconf the docs describe: every recipe pins the release tag
of this checkout's version, and a profile using every field docs/probe.md documents is one that
this checkout's profile schema, and the tag's once it is made, accepts. A pin far behind the
docs is how CI copied from them fails where the local run passes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ctxconf import __version__
from ctxconf.probe.profile import load_profile
from ctxconf.probe.schemas import validate_data
from tests.paths import ROOT
from tests.test_ci_recipes import _git, _pins

PROBE_MD = ROOT / "docs" / "probe.md"
SCHEMA = "probe/data/schemas/profile.schema.json"
TAG = f"v{__version__}"

# Every field of docs/probe.md's profile table, used the way its row says, in one profile.
EVERY_FIELD: dict[str, Any] = {
    "name": "every-field",
    "description": "a harness's profile that uses every documented field",
    "api": "openai-chat",
    "version_command": ["my-harness", "--version"],
    "install": {"npm": "my-harness@1.2.3", "node": "22"},
    "notes": "driven through its OpenAI-compatible base URL",
    "files": {"home/.my-harness/config.json": '{"baseURL": "{base_url}/v1"}'},
    "env": {"MY_HARNESS_BASE_URL": "{base_url}/v1", "MY_HARNESS_API_KEY": "dummy"},
    "drive": {
        "mode": "per-turn",
        "command": ["my-harness", "run", "--json", "{args}", "{message}"],
        "resume": [
            "my-harness",
            "run",
            "--json",
            "--resume",
            "{last_session_id}",
            "{args}",
            "{message}",
        ],
    },
    "usage_output": {"key": "usage.cached_tokens", "file": "{home}/.my-harness/*/usage.json"},
    "tools": {
        "read": {"name": "read_files", "arguments": {"files": [{"path": "{path}"}]}},
        "bash": {"name": "execute", "arguments": {"language": "shell", "code": "{command}"}},
    },
    "session_id": {"pattern": '"session_id":\\s*"([0-9a-f-]+)"', "stream": "stdout"},
    "setup": ["my-harness", "login", "--local"],
    "text_tool": "finish",
    "text_command": "echo done",
    "served_models": {"my-model": "my-model-2026-12-01"},
    "clock": "static",
    "clock_note": "a static binary: libfaketime cannot move it",
    "timeout": 120,
    "version_seen": "1.2.3",
    "instructions_file": "AGENTS.md",
    "mcp": {
        "file": "home/.my-harness/config.json",
        "merge": {"mcp": {"{mcp_name}": {"command": ["{mcp_command}", "{mcp_args}"]}}},
    },
    "commands": {
        "plan_mode": {"args": ["--plan"]},
        "model_switch": {"env": {"MY_HARNESS_MODEL": "other-model"}},
        "compact": {"message": "/compact"},
    },
}


def _documented_fields() -> set[str]:
    """The top-level fields docs/probe.md names for a profile: its smallest example's keys, each
    row of its field table, and the fields a row names beside its own (`clock_note`)."""
    text = PROBE_MD.read_text(encoding="utf-8")
    section = text[text.index("## A profile for your own harness") :]
    example = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert example, "docs/probe.md: no smallest profile"
    fields = set(re.findall(r"^(\w+):", example[1], re.M))
    table = section[section.index("| field | what |") :].split("\n\n", 1)[0]
    for row in table.splitlines()[2:]:
        first, what = row.split("|")[1:3]
        fields |= {name.split(".")[0] for name in re.findall(r"`([\w.]+)`", first)}
        fields |= set(re.findall(r"`(\w+_note)`", what))
    return fields


def test_every_recipe_pins_the_release_tag_of_this_version() -> None:
    assert set(_pins()) == {TAG}, "docs/ci.md: every pin is `v` and the version ctxconf says"
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert f"`{TAG}`" in text, "docs/ci.md names the release its recipes install"


def test_the_profile_using_every_field_uses_every_documented_one() -> None:
    documented = _documented_fields()
    assert {"instructions_file", "commands", "mcp", "drive", "clock_note"} <= documented
    assert documented == set(EVERY_FIELD), documented ^ set(EVERY_FIELD)


def test_this_checkouts_profile_schema_and_rules_accept_every_documented_field(
    tmp_path: Path,
) -> None:
    validate_data(EVERY_FIELD, "profile", "the every-field profile")
    path = tmp_path / "every-field.yaml"
    path.write_text(json.dumps(EVERY_FIELD), encoding="utf-8")  # JSON is YAML
    assert load_profile(str(path)).instructions_file == "AGENTS.md"


def _refused_by_tag(repo: Path) -> list[str] | None:
    """What the profile schema at `repo`'s tag TAG refuses of EVERY_FIELD; None: no such tag."""
    found = subprocess.run(
        ["git", "show", f"refs/tags/{TAG}:{SCHEMA}"],
        cwd=repo, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    if found.returncode != 0:
        return None
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(json.loads(found.stdout))
    return sorted(error.message for error in validator.iter_errors(EVERY_FIELD))


def test_the_release_tags_profile_schema_accepts_every_documented_field() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the release tag cannot be looked up")
    refused = _refused_by_tag(ROOT)
    if refused is None:
        pytest.skip(f"{TAG} is not tagged here yet: the release is made from this version")
    assert not refused, (
        f"{TAG}'s profile schema refuses fields docs/probe.md documents: {refused}; release a "
        "new version (pyproject.toml, ctxconf/__init__.py), tag it, and pin the recipes to it"
    )


def _tagged(repo: Path, schema: dict[str, Any]) -> Path:
    """A git repository whose tag TAG holds `schema` as its bundled profile schema."""
    (repo / SCHEMA).parent.mkdir(parents=True)
    (repo / SCHEMA).write_text(json.dumps(schema), encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "release")
    _git(repo, "tag", TAG)
    return repo


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_tag_far_behind_the_docs_is_refused_and_one_at_them_is_not(tmp_path: Path) -> None:
    today = json.loads((ROOT / SCHEMA).read_text(encoding="utf-8"))
    behind = json.loads(json.dumps(today))
    for field in ("commands", "instructions_file"):  # what a tag far behind did not know
        del behind["properties"][field]
    refused = _refused_by_tag(_tagged(tmp_path / "behind", behind))
    assert refused and "'commands', 'instructions_file' were unexpected" in refused[0], refused
    assert _refused_by_tag(_tagged(tmp_path / "today", today)) == []
