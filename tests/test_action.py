"""The repository's composite action (action.yml): GitHub's schema accepts it, every input it
reads is declared, ctxconf runs from a virtual environment of its own without changing the
job's `python3` or `node`, and its script runs `ctxconf run` and `ctxconf probe` as its inputs
say."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxconf.probe.batch import Pair
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
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-actions",
            str(ACTION),
        ],
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


def _steps() -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = _action()["runs"]["steps"]
    return steps


def test_no_step_puts_a_python_or_a_node_on_the_path_of_later_steps() -> None:
    for step in _steps():
        uses = step.get("uses", "")
        if uses.startswith("actions/setup-python@"):
            # Its default, update-environment true, puts its python3 first on PATH for every
            # later step of the job: a Python harness would run on ctxconf's interpreter.
            assert step.get("with", {}).get("update-environment") is False, step
        assert not uses.startswith("actions/setup-node@"), step
        script = step.get("run", "")
        for changes_later_steps in ("GITHUB_PATH", "GITHUB_ENV", "activate"):
            assert changes_later_steps not in script, (changes_later_steps, script)


def test_ctxconf_is_installed_into_its_own_venv_and_run_by_its_path() -> None:
    (python,) = (s for s in _steps() if s.get("id") == "python")
    (install,) = (s for s in _steps() if "pip install" in s.get("run", ""))
    (run,) = (s for s in _steps() if s.get("id") == "ctxconf")
    venv = "${{ runner.temp }}/ctxconf-venv"
    assert install["env"]["CTXCONF_VENV"] == run["env"]["CTXCONF_VENV"] == venv
    assert install["env"]["CTXCONF_PYTHON"] == "${{ steps.python.outputs.python-path }}"
    assert python["with"]["python-version"] == "${{ inputs.python-version }}"
    lines = install["run"].splitlines()
    assert '"$CTXCONF_PYTHON" -m venv "$CTXCONF_VENV"' in lines
    assert any(line.startswith('"$CTXCONF_VENV/bin/python" -m pip install ') for line in lines)
    invoked = re.findall(r"^\s*(\S*ctxconf\S*) \"\$\{args\[@\]\}\"$", run["run"], re.M)
    assert invoked == ['"$CTXCONF_VENV/bin/ctxconf"'], invoked


def _run_action(
    tmp_path: Path, venv: Path | None = None, **inputs: str
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The action's script as GitHub runs it: each input given, or its declared default; its
    ctxconf the one of `venv`, by default this test's own."""
    script, env_template = _script()
    declared = _action()["inputs"]
    given = {name.replace("_", "-"): value for name, value in inputs.items()}
    env = {}
    for variable, expression in env_template.items():
        if variable == "CTXCONF_VENV":
            env[variable] = str(venv or sys.prefix)  # stands for the action's own
            continue
        (name,) = re.findall(r"inputs\.([\w-]+)", expression)
        env[variable] = given.get(name, str(declared[name].get("default", "")))
    output = tmp_path / "github-output"
    # The job's PATH without this venv: the script must reach ctxconf by its path.
    bindir = str(Path(sys.executable).parent)
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p != bindir)
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=tmp_path,
        env={**os.environ, **env, "GITHUB_OUTPUT": str(output), "PATH": path},
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
    done, output = _run_action(tmp_path, command="probe", harness=str(profile), scenario="basic")
    assert done.returncode == 0, done.stdout + done.stderr
    stem = f"reports/{profile.stem}-basic"
    assert output.read_text(encoding="utf-8") == f"results={stem}.json\n"
    assert (tmp_path / f"{stem}.json").is_file() and (tmp_path / f"{stem}.html").is_file()
    assert sorted(p.name for p in (tmp_path / "reports").iterdir() if p.is_file()) == [
        f"{profile.stem}-basic.html",
        f"{profile.stem}-basic.json",
    ]  # and no results.json or probe.html beside them


@pytest.mark.parametrize(
    ("harness", "scenario"),
    [
        ("codex", "basic"),
        ("probe/my-harness.yaml", "midnight"),
        ("./harness.v2.yml", "scenarios/own.json"),
    ],
)
def test_the_probe_results_the_action_names_are_those_ctxconf_writes(
    tmp_path: Path, harness: str, scenario: str
) -> None:
    # A ctxconf that only says what it was asked: the name is the action's own reckoning.
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "ctxconf").write_text('#!/bin/sh\necho "$@"\n', encoding="utf-8")
    (venv / "bin" / "ctxconf").chmod(0o755)
    done, output = _run_action(
        tmp_path, venv=venv, command="probe", harness=harness, scenario=scenario
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "probe", "--harness", harness, "--scenario", scenario, "--out", "reports",
    ]  # fmt: skip
    assert (
        output.read_text(encoding="utf-8")
        == f"results=reports/{Pair(harness, scenario).stem}.json\n"
    )


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
