"""Harness faults the prefix area exists to catch fail named cases when run through the runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.paths import ROOT

FAULTS = {
    # A harness that puts today's date into its system prompt remakes it at midnight.
    "date_in_system_prompt": (
        "prefix/session.py",
        "        parts = [self._base] if self._base else []\n",
        "        parts = [self._base] if self._base else []\n"
        "        parts.append('Today is ' + self._date + '.')\n",
        "midnight-keeps-the-system-prompt",
    ),
    # Anthropic's input_tokens leaves out what was read from and written to the cache.
    "anthropic_input_as_total": (
        "prefix/usage.py",
        "return Usage.of(_sum(uncached_part, read, write), read, write)",
        "return Usage.of(uncached_part, read, write)",
        "usage-anthropic-cache-read",
    ),
}

MODULE = """
from pathlib import Path
from tests.mutants import Mutant, load_mutant
from ctxconf.runner.protocol import PROTOCOL_VERSION
import json

_mutant = Mutant("fault", {name!r}, {file!r}, (({old!r}, {new!r}),))
_package = load_mutant(_mutant)
_loop = json.loads(Path({loop!r}).read_text(encoding="utf-8"))


def hello():
    return {{"protocol": PROTOCOL_VERSION, "areas": ["prefix"],
             "implementation": {{"name": {name!r}, "version": "0", "language": "python"}}}}


def run(request):
    outputs = _package.run_area_case("prefix", request["case"], _loop)
    return {{"seq": request["seq"], "outputs": outputs}}
"""


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_fault_fails_its_named_case(fault: str, tmp_path: Path) -> None:
    file, old, new, case = FAULTS[fault]
    (tmp_path / f"{fault}.py").write_text(
        textwrap.dedent(
            MODULE.format(
                name=fault,
                file=file,
                old=old,
                new=new,
                loop=str(ROOT / "spec" / "loop.json"),
            )
        ),
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ctxconf",
            "run",
            "--impl",
            f"python:{fault}",
            "--area",
            "prefix",
            "--json",
            str(tmp_path / "results.json"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    verdicts = {c["name"]: c["verdict"] for c in results["cases"]}
    assert verdicts[case] == "fail", verdicts
    assert "pass" in verdicts.values(), "the fault must cost its cases, not every case"
