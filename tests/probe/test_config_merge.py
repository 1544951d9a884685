"""`mcp.merge`: the probe's MCP server deep-merged into a JSON or YAML file the profile writes,
every filled value escaped by the file's own writer, and the profile's own keys kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxconf.probe.config_merge import deep_merge, fill, merged_config
from ctxconf.probe.events import mcp_values, substitute, write_mcp_config
from ctxconf.probe.isolation import Room
from ctxconf.probe.profile import Profile, load_profile
from ctxconf.probe.scenario import load_scenario

ARGS = ["/srv/mcp server.py", "--tools", "a,b"]
SERVER = {"mcp": {"{mcp_name}": {"type": "local", "command": ["{mcp_command}", "{mcp_args}"]}}}


def test_mcp_args_alone_is_the_list_and_in_a_list_its_items_are_spliced() -> None:
    values = {"mcp_name": "probe", "mcp_command": "/usr/bin/python3"}
    filled = fill({"args": "{mcp_args}", "cmd": ["{mcp_command}", "{mcp_args}"]}, values, ARGS)
    assert filled == {"args": ARGS, "cmd": ["/usr/bin/python3", *ARGS]}


def test_a_deep_merge_keeps_what_the_merge_does_not_name() -> None:
    base = {"provider": {"mock": {"url": "u"}}, "mcp": {"kept": {"command": ["old"]}}, "n": 1}
    extra = {"mcp": {"probe": {"command": ["new"]}}, "n": 2}
    assert deep_merge(base, extra) == {
        "provider": {"mock": {"url": "u"}},
        "mcp": {"kept": {"command": ["old"]}, "probe": {"command": ["new"]}},
        "n": 2,
    }


def test_a_value_with_a_quote_and_a_backslash_cannot_break_the_json() -> None:
    odd = 'C:\\probe "home"/{x}'
    template = '{"provider": {"baseURL": "{home}/v1"}}'
    values = {"home": odd, "mcp_name": "probe", "mcp_command": odd}
    data = json.loads(merged_config("work/kilo.json", template, SERVER, values, [odd]))
    assert data["provider"]["baseURL"] == odd + "/v1"
    assert data["mcp"]["probe"]["command"] == [odd, odd]


def test_a_yaml_file_is_merged_into_and_written_as_yaml() -> None:
    template = "model:\n  base_url: '{base_url}/v1'\nmcp_servers:\n  other: {command: x}\n"
    merge = {"mcp_servers": {"{mcp_name}": {"command": "{mcp_command}", "args": "{mcp_args}"}}}
    values = {"base_url": "http://127.0.0.1:9", "mcp_name": "probe", "mcp_command": "py: 'q'"}
    data = yaml.safe_load(merged_config("home/.hermes/config.yaml", template, merge, values, ARGS))
    assert data == {
        "model": {"base_url": "http://127.0.0.1:9/v1"},
        "mcp_servers": {"other": {"command": "x"}, "probe": {"command": "py: 'q'", "args": ARGS}},
    }


def _profile(tmp_path: Path, mcp: dict[str, Any], files: dict[str, str]) -> Profile:
    path = tmp_path / "own.yaml"
    data = {
        "name": "own",
        "description": "a harness whose config holds its MCP servers",
        "api": "openai-chat",
        "files": files,
        "drive": {"mode": "one-process", "command": ["own", "{message}"]},
        "mcp": mcp,
    }
    path.write_text(json.dumps(data))
    return load_profile(str(path))


def test_the_server_is_merged_into_the_profiles_own_file_as_the_run_writes_it(
    tmp_path: Path,
) -> None:
    files = {"work/kilo.json": '{"model": "mock/mock-model", "provider": {"mock": {}}}'}
    profile = _profile(tmp_path, {"file": "work/kilo.json", "merge": SERVER}, files)
    room = Room.make(tmp_path / "room")
    values = {"work": str(room.work), **mcp_values(load_scenario("mcp-late"), room.root)}
    (room.work / "kilo.json").write_text("written by the run before, as text")
    write_mcp_config(profile, load_scenario("mcp-late"), room, values)
    data = json.loads((room.work / "kilo.json").read_text())
    assert data["model"] == "mock/mock-model" and data["provider"] == {"mock": {}}
    command = data["mcp"]["probe"]["command"]
    assert command[0] == values["mcp_command"]
    assert command[1:] == json.loads(values["mcp_args"])


def test_a_merge_into_a_file_the_profile_does_not_write_makes_it(tmp_path: Path) -> None:
    profile = _profile(tmp_path, {"file": "home/.factory/mcp.json", "merge": SERVER}, {})
    room = Room.make(tmp_path / "room")
    values = mcp_values(load_scenario("mcp-late"), room.root)
    write_mcp_config(profile, load_scenario("mcp-late"), room, values)
    data = json.loads((room.home / ".factory" / "mcp.json").read_text())
    assert list(data) == ["mcp"] and data["mcp"]["probe"]["type"] == "local"


def test_no_server_is_merged_for_a_scenario_without_one(tmp_path: Path) -> None:
    profile = _profile(tmp_path, {"file": "home/mcp.json", "merge": SERVER}, {})
    room = Room.make(tmp_path / "room")
    write_mcp_config(profile, load_scenario("basic"), room, {})
    assert not (room.home / "mcp.json").exists()


@pytest.mark.parametrize(
    ("name", "servers"),
    [
        ("codex", lambda data: [{"name": n, **s} for n, s in data["mcp_servers"].items()]),
        ("gptme", lambda data: data["mcp"]["servers"]),
    ],
)
def test_an_appended_toml_server_keeps_a_path_with_a_quote_one_string(
    tmp_path: Path, name: str, servers: Any
) -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 on
    profile = load_profile(name)
    room = Room.make(tmp_path / "room")
    values = {
        **{key: str(getattr(room, key)) for key in ("home", "work")},
        **mcp_values(load_scenario("mcp-late"), room.root),
    }
    odd = '/opt/odd "dir"\\bin/python3 = x'  # a quote, a backslash and an equals sign
    values.update(mcp_command=odd, mcp_command_json=json.dumps(odd))
    assert profile.mcp is not None and profile.mcp.file is not None
    target = room.place_of(profile.mcp.file)
    target.parent.mkdir(parents=True, exist_ok=True)
    # The profile's own file first, as the run writes it (codex's holds its provider).
    target.write_text(substitute(profile.files.get(profile.mcp.file, ""), values))
    write_mcp_config(profile, load_scenario("mcp-late"), room, values)
    (server,) = servers(tomllib.loads(target.read_text(encoding="utf-8")))
    assert server["name"] == "probe"
    assert server["command"] == values["mcp_command"]
    assert server["args"] == json.loads(values["mcp_args"])
