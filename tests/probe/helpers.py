"""Profiles of the fake harnesses, written for one test with the faults it asks for."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ctxconf.probe.checks import CHECKS, CheckResult, judge, split_requests
from ctxconf.probe.harness import Front, ProbeRun, run_probe
from ctxconf.probe.profile import load_profile
from ctxconf.probe.scenario import load_scenario

FAKES = Path(__file__).parent / "fakes"
SHAPES = {
    "chat": "openai-chat",
    "responses": "openai-responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
}


def fake_profile(
    folder: Path,
    shape: str = "chat",
    faults: tuple[str, ...] = (),
    mode: str = "per-turn",
    usage_file: str | None = None,
    persist: bool = False,
    variant: str | None = None,
    options: tuple[str, ...] = (),
    timeout: float = 60,
    args: tuple[str, ...] = (),
    extra: dict[str, Any] | None = None,
) -> Path:
    """A profile file for the fake harness of `shape` with `faults`; returns its path. With
    `persist` the fake keeps a transcript written message by message. `variant` names a fake
    with one fault of its own (`fakes/VARIANT.py`, given `options`) in place of the shape's."""
    script = str(FAKES / f"{variant or 'fake_' + shape}.py")
    flags = [a for f in faults for a in ("--fault", f)] + (["--persist"] if persist else [])
    if variant:
        flags = ["--shape", shape, *options, *flags]
    flags += list(args)  # the mid-session changes' options: --instructions FILE, --mcp-config …
    if mode == "per-turn":
        drive = {
            "mode": "per-turn",
            "command": [sys.executable, script, *flags, "{args}", "{message}"],
            "resume": [sys.executable, script, *flags, "--resume", "{args}", "{message}"],
        }
    elif mode == "one-task":  # one message per run, like mini-swe-agent
        drive = {"mode": "one-process", "command": [sys.executable, script, *flags, "{message}"]}
    elif mode == "one-process":  # every message on one command line, like pi
        drive = {
            "mode": "one-process",
            "command": [sys.executable, script, *flags, "--messages", "{messages}"],
        }
    else:
        drive = {
            "mode": "stream-json",
            "command": [sys.executable, script, *flags, "{args}", "--stream-json"],
            "message": '{"message": "{message}"}',
            "turn_done": {"key": "type", "value": "result"},
        }
    profile = {
        "name": f"fake-{shape}",
        "description": f"the fake {shape} harness of the probe's tests",
        "api": SHAPES[shape],
        "version_command": [sys.executable, script, *flags[: 2 if variant else 0], "--version"],
        "env": {"FAKE_BASE_URL": "{base_url}"},
        "drive": drive,
        "usage_output": {"key": "usage.cached_tokens"},
        "clock": "self",
        "timeout": timeout,
    }
    profile.update(extra or {})  # instructions_file, mcp, commands
    if usage_file:
        profile["env"] = {**profile["env"], "FAKE_USAGE_FILE": usage_file}
        profile["usage_output"] = {"key": "usage.cached_tokens", "file": usage_file}
    kept = "-persist" if persist else ""
    name = "-".join([*faults, *([variant] if variant else []), *options]) or "clean"
    if extra:
        name += "-" + "-".join(sorted(extra))
    path = folder / f"fake-{shape}-{name.replace('/', '_')}{kept}.yaml"
    path.write_text(json.dumps(profile, indent=2))  # JSON is YAML
    return path


def judge_one(check_id: str, run: ProbeRun) -> CheckResult:
    """One check's own verdict on a run made by hand, past what the run's scenario meant (a
    record of a few requests is not a whole run; `measured` would call it short)."""
    check = next(c for c in CHECKS if c.id == check_id)
    said = [turn.user for turn in run.scenario.turns]
    sessions = [split_requests(s, said)[0] for s in run.sessions]
    return check.judge(check, run, sessions)


def run_fake(
    folder: Path,
    shape: str = "chat",
    scenario: str = "basic",
    front: Front | None = None,
    **profile: Any,
) -> ProbeRun:
    """The fake of `shape` (and `profile`'s options: faults, variant, …) played through
    `scenario` (a bundled name or a path), in process; `front` between it and the mock."""
    folder.mkdir(parents=True, exist_ok=True)
    path = fake_profile(folder, shape, **profile)
    scenario_read = load_scenario(scenario)
    return run_probe(load_profile(str(path)), scenario_read, folder / "logs", front=front)


def checks_of(run: ProbeRun) -> dict[str, CheckResult]:
    return {c.id: c for c in judge(run)}


def write_scenario(folder: Path, data: dict[str, Any]) -> str:
    path = folder / f"{data['name']}.json"
    path.write_text(json.dumps(data))
    return str(path)
