"""The repository's composite action (action.yml): GitHub's schema accepts it, every input it
reads is declared, and its script runs `ctxconf run` and `ctxconf probe` as its inputs say."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.paths import ROOT
from tests.probe.helpers import fake_profile

ACTION = ROOT / "action.yml"


def _action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return data


def _script() -> tuple[str, dict[str, str]]:
    (step,) = (s for s in _action()["runs"]["steps"] if s.get("id") == "ctxconf")
    return step["run"], step["env"]


@pytest.mark.slow  # check-jsonschema starts a process of its own
def test_github_accepts_the_action() -> None:
    # The schema ships inside check-jsonschema: no download.
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-actions",
         str(ACTION)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_input_the_action_reads_is_declared_and_none_is_pasted_into_a_script() -> None:
    declared = set(_action()["inputs"])
    text = ACTION.read_text(encoding="utf-8")
    read = set(re.findall(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", text))
    assert read and read <= declared, read - declared
    for step in _action()["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), "an input pasted into a script can run as code"


def _run_action(tmp_path: Path, **inputs: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The action's script as GitHub runs it: each input given, or its declared default."""
    script, env_template = _script()
    declared = _action()["inputs"]
    given = {name.replace("_", "-"): value for name, value in inputs.items()}
    env = {}
    for variable, expression in env_template.items():
        (name,) = re.findall(r"inputs\.([\w-]+)", expression)
        env[variable] = given.get(name, str(declared[name].get("default", "")))
    output = tmp_path / "github-output"
    bindir = str(Path(sys.executable).parent)  # where this venv's `ctxconf` is
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=tmp_path,
        env={**os.environ, **env, "GITHUB_OUTPUT": str(output),
             "PATH": bindir + os.pathsep + os.environ["PATH"]},
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done, output


@pytest.mark.slow  # runs every bundled case
def test_the_run_command_writes_results_page_and_junit(tmp_path: Path) -> None:
    done, output = _run_action(tmp_path, command="run", impl="reference")
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("results.json", "report.html", "junit.xml"):
        assert (tmp_path / "reports" / name).is_file(), name
    assert output.read_text(encoding="utf-8") == "results=reports/results.json\n"


@pytest.mark.slow  # plays a fake harness through the probe
def test_the_probe_command_probes_a_harness_profile(tmp_path: Path) -> None:
    profile = fake_profile(tmp_path)
    done, _ = _run_action(tmp_path, command="probe", harness=str(profile), scenario="basic")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "reports" / "results.json").is_file()
    assert (tmp_path / "reports" / "probe.html").is_file()


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"command": "deploy"}, 'command is "run" or "probe", not "deploy"'),
        ({"command": "run"}, "run needs impl"),
        ({"command": "probe"}, "probe needs harness"),
    ],
)
def test_a_wrong_input_is_one_line_and_exit_2(
    tmp_path: Path, inputs: dict[str, str], message: str
) -> None:
    done, _ = _run_action(tmp_path, **inputs)
    assert (done.returncode, done.stderr.strip()) == (2, f"ctxconf action: {message}")


def test_a_value_with_shell_syntax_stays_a_value(tmp_path: Path) -> None:
    done, _ = _run_action(tmp_path, command="$(touch pwned)")
    assert done.returncode == 2
    assert not (tmp_path / "pwned").exists()
