"""The recipes of docs/ci.md run as written: workflows GitHub accepts, and the pre-commit hook
run for real against a clone of this repository (the pin they share: tests/test_ci_pin.py)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.paths import ROOT

pytestmark = pytest.mark.slow  # runs the CI recipes: pre-commit installs, workflows validate

CI_MD = ROOT / "docs" / "ci.md"

_BLOCK = re.compile(r"^```yaml\n(?P<body>.*?)^```$", re.S | re.M)
_FILE_NAME = re.compile(r"`([^`\s]+\.ya?ml)`")


def _recipes() -> dict[str, str]:
    """The YAML blocks of docs/ci.md by file name: the first one the paragraph before names."""
    text = CI_MD.read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for block in _BLOCK.finditer(text):
        before = text[: block.start()].rstrip().rsplit("\n\n", 1)[-1]
        name = _FILE_NAME.search(before)
        if name is not None:
            found[name[1]] = block["body"]
    assert found, f"{CI_MD}: no YAML recipe named after its file"
    return found


def _workflows() -> dict[str, str]:
    return {n: body for n, body in _recipes().items() if n.startswith(".github/workflows/")}


def test_the_workflows_are_valid_github_workflows(tmp_path: Path) -> None:
    workflows = _workflows()
    assert len(workflows) >= 2, sorted(_recipes())
    files = []
    for name, body in workflows.items():
        files.append(tmp_path / Path(name).name)
        files[-1].write_text(body, encoding="utf-8")
    # The schema ships inside check-jsonschema: no download.
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows"]
        + [str(f) for f in files],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _steps(workflow: str) -> list[dict[str, Any]]:
    jobs = yaml.safe_load(workflow)["jobs"]
    return [step for job in jobs.values() for step in job["steps"]]


def _pins() -> list[str]:
    """The ref every recipe pins ctxconf to: each `pip install` line's, then pre-commit's rev."""
    installs = [
        step["run"]
        for workflow in _workflows().values()
        for step in _steps(workflow)
        if re.search(r"pip install .*ctxconf", step.get("run", ""))  # not a harness's own
    ]
    assert installs, "the workflows install no ctxconf"
    pins = []
    for line in installs:
        found = re.search(r"ctxconf @ git\+https://\S+@(?P<ref>[^\s\"]+)", line)
        assert found, line
        pins.append(found["ref"])
    # The action (action.yml) at the same ref: `uses: ctxconf/ctxconf@REF`.
    pins += [
        step["uses"].rpartition("@")[2]
        for workflow in _workflows().values()
        for step in _steps(workflow)
        if step.get("uses", "").startswith("ctxconf/ctxconf@")
    ]
    (config,) = (yaml.safe_load(b) for n, b in _recipes().items() if n == ".pre-commit-config.yaml")
    (repo,) = config["repos"]
    assert repo["repo"].startswith("https://"), repo
    return [*pins, str(repo["rev"])]


def _git(cwd: Path, *args: str) -> str:
    identity = {
        "GIT_AUTHOR_NAME": "ctxconf tests",
        "GIT_AUTHOR_EMAIL": "tests@ctxconf.invalid",
        "GIT_COMMITTER_NAME": "ctxconf tests",
        "GIT_COMMITTER_EMAIL": "tests@ctxconf.invalid",
    }
    done = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **identity},
        timeout=120,
    )
    assert done.returncode == 0, f"git {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout.strip()


def _commit_tree(source: Path, to: Path) -> str:
    """A git repository at `to` holding `source` as it is now, committed; the commit's hash."""
    shutil.copytree(
        source,
        to,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "reports", "__pycache__", "*.egg-info", ".*_cache"
        ),
    )
    _git(to, "init", "-q")
    _git(to, "add", "-A")
    _git(to, "commit", "-q", "-m", "snapshot")
    return _git(to, "rev-parse", "HEAD")


def _pre_commit(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color=never"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PRE_COMMIT_HOME": str(home)},
        timeout=900,
    )


@pytest.mark.slow  # pre-commit installs ctxconf and its dependencies into a fresh environment
def test_the_pre_commit_recipe_passes_a_clean_spec_and_fails_a_stale_one(tmp_path: Path) -> None:
    # The working tree may hold changes not yet committed: the hook is taken from a snapshot.
    commit = _commit_tree(ROOT, tmp_path / "ctxconf")
    config = yaml.safe_load(_recipes()[".pre-commit-config.yaml"])
    config["repos"][0].update(repo=str(tmp_path / "ctxconf"), rev=commit)

    spec_repo = tmp_path / "spec-repo"
    shutil.copytree(ROOT / "spec", spec_repo / "spec")
    (spec_repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    _git(spec_repo, "init", "-q")
    _git(spec_repo, "add", "-A")
    home = tmp_path / "pre-commit-home"

    clean = _pre_commit(spec_repo, home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert re.search(r"^ctxconf check\.+Passed$", clean.stdout, re.M), clean.stdout

    # A number changed without regenerating: the expected texts of the cases are stale.
    loop = spec_repo / "spec" / "loop.json"
    data = json.loads(loop.read_text(encoding="utf-8"))
    data["context"]["sha_digits"] += 1
    loop.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    _git(spec_repo, "add", "-A")
    stale = _pre_commit(spec_repo, home)
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert re.search(r"^ctxconf check\.+Failed$", stale.stdout, re.M), stale.stdout
    assert "regen --check" in stale.stdout, stale.stdout
