"""What the new profile fields make a probe do, each with a fake that needs it: the run fails
what it should without the field (or with it wrong), and passes with it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxconf.probe.checks import judge_run
from ctxconf.probe.harness import ProbeRun, run_probe
from ctxconf.probe.profile import load_profile
from ctxconf.probe.scenario import load_scenario

from .helpers import checks_of, fake_profile

OWN_TOOLS = {
    "read": {"name": "read_files", "arguments": {"files": [{"path": "{path}"}]}},
    "bash": {"name": "execute", "arguments": {"language": "shell", "code": "{command}"}},
}
LOGIN = (
    "import os, pathlib; p = pathlib.Path(os.environ['HOME'], '.fake', 'login');"
    " p.parent.mkdir(parents=True, exist_ok=True); p.write_text('ok')"
)


def _run(folder: Path, variant: str | None, scenario: str = "basic", **more: Any) -> ProbeRun:
    """The fake (of `variant`) with the profile fields in `more` put over its profile; a
    `resume` key replaces the resume command's `--resume` with its own arguments."""
    folder.mkdir(parents=True, exist_ok=True)
    path = fake_profile(folder, "chat", variant=variant)
    data = json.loads(path.read_text())
    resume = more.pop("resume", None)
    if resume is not None:
        argv = data["drive"]["resume"]
        at = argv.index("--resume")
        data["drive"]["resume"] = [*argv[:at], *resume, *argv[at + 1 :]]
    data.update(more)
    path.write_text(json.dumps(data))
    return run_probe(load_profile(str(path)), load_scenario(scenario), folder / "logs")


def _shortfalls(run: ProbeRun) -> list[str]:
    return [f.reason for f in judge_run(run).shortfalls]


@pytest.mark.slow  # runs the fake harness through the basic scenario, twice
def test_tools_shaped_otherwise_are_played_through_the_profile_map(tmp_path: Path) -> None:
    unmapped = checks_of(_run(tmp_path / "unmapped", "own_tools"))
    mapped_run = _run(tmp_path / "mapped", "own_tools", tools=OWN_TOOLS)
    mapped = checks_of(mapped_run)
    assert unmapped["reread"].verdict == "error", unmapped["reread"]
    assert "turn 1 sent 1 of its 4 requests" in unmapped["reread"].summary
    assert mapped["system-once"].verdict == "pass", mapped["system-once"]
    # The results came back through the harness's own tools: the file whole, the 50,000 lines.
    assert mapped["reread"].summary.startswith("full again"), mapped["reread"]
    assert mapped["long-output"].figures["behaviour"] == "full", mapped["long-output"]
    calls = [e["reply"] for s in mapped_run.sessions for e in s.entries if e.get("reply")]
    assert {"tool": "execute", "arguments": {"language": "shell", "code": "seq 1 50000"}} == {
        k: v for k, v in calls[2].items() if k != "text"
    }


@pytest.mark.slow  # runs the fake harness through the basic scenario, three times
def test_a_resume_by_id_takes_the_id_the_turn_before_printed(tmp_path: Path) -> None:
    session_id = {"pattern": '"session_id": "([^"]+)"'}
    by_id = _run(
        tmp_path / "id",
        "resumes_by_id",
        resume=["--session", "{last_session_id}"],
        session_id=session_id,
    )
    plain = _run(tmp_path / "plain", "resumes_by_id")
    unmatched = _run(
        tmp_path / "unmatched",
        "resumes_by_id",
        resume=["--session", "{last_session_id}"],
        session_id={"pattern": '"conversation": "([^"]+)"'},
    )
    assert checks_of(by_id)["history-prefix"].verdict == "pass"
    assert _shortfalls(by_id) == []
    resumed = by_id.sessions[0].processes[1].argv
    printed = json.loads(by_id.sessions[0].processes[0].stdout)["session_id"]
    assert resumed[resumed.index("--session") + 1] == printed
    assert any("the resume of turn 2 started a new session" in r for r in _shortfalls(plain))
    assert checks_of(plain)["history-prefix"].verdict == "error"
    reasons = _shortfalls(unmatched)
    assert any("no earlier turn printed a session id" in r for r in reasons), reasons


@pytest.mark.slow  # runs the fake harness through the basic scenario, three times
def test_a_setup_command_runs_before_the_first_turn_in_the_harness_home(tmp_path: Path) -> None:
    none = _run(tmp_path / "none", "needs_login")
    setup = _run(tmp_path / "setup", "needs_login", setup=[sys.executable, "-c", LOGIN])
    failing = _run(
        tmp_path / "failing", "needs_login", setup=[sys.executable, "-c", "raise SystemExit(3)"]
    )
    assert checks_of(none)["system-once"].verdict == "error"
    assert any("not logged in" in r for r in _shortfalls(none))
    assert _shortfalls(setup) == []
    assert checks_of(setup)["system-once"].verdict == "pass"
    first = setup.sessions[0].processes[0]
    assert first.setup and first.exit_code == 0 and first.turns == []
    reasons = _shortfalls(failing)
    assert len(reasons) == 1 and reasons[0].startswith(
        "turns 1 and 2 were never played: the setup command failed: the process exited 3"
    ), reasons
    assert "ended the same way" not in reasons[0]
    assert [p.setup for p in failing.sessions[0].processes] == [True]


@pytest.mark.slow  # runs the fake harness through the basic scenario, twice
def test_a_usage_file_under_the_home_named_by_a_glob_is_read(tmp_path: Path) -> None:
    usage = {"key": "usage.cached_tokens", "file": "{home}/.fake/usage-*/report.json"}
    env = {"FAKE_BASE_URL": "{base_url}", "FAKE_USAGE_FILE": "{home}/.fake/usage-{pid}/report.json"}
    shown = checks_of(_run(tmp_path / "shown", None, usage_output=usage, env=env))
    (tmp_path / "hidden").mkdir()
    hidden_path = fake_profile(tmp_path / "hidden", "chat", ("ignore-usage",))
    data = json.loads(hidden_path.read_text())
    data.update(usage_output=usage, env=env)
    hidden_path.write_text(json.dumps(data))
    hidden = checks_of(
        run_probe(load_profile(str(hidden_path)), load_scenario("basic"), tmp_path / "h")
    )
    assert shown["usage-shown"].verdict == "pass", shown["usage-shown"]
    assert hidden["usage-shown"].verdict == "fail", hidden["usage-shown"]
