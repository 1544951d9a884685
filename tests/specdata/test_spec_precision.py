"""Numbers as the spec means them: no case carries a number JSON cannot, and `ctxconf` refuses
one wherever it could come in (a case file, a YAML case, a run), with its place."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxconf.specdata.paths import bundled_spec_dir
from tests.cli import ctxconf

SPEC = bundled_spec_dir()
# A number of the bundled cases that a non-finite one replaces.
PLAIN = '"n": 10000000000000001'


def _line_of(path: Path, text: str) -> int:
    return (
        path.read_text(encoding="utf-8")
        .split("\n")
        .index(next(line for line in path.read_text(encoding="utf-8").split("\n") if text in line))
        + 1
    )


@pytest.mark.slow
@pytest.mark.parametrize("number", ["1e400", "-1e400", "NaN", "Infinity", "-Infinity"])
def test_validate_refuses_a_non_finite_argument(spec: Path, number: str) -> None:
    cases = spec / "conformance" / "context.json"
    line = _line_of(cases, PLAIN)
    cases.write_text(
        cases.read_text(encoding="utf-8").replace(PLAIN, f'"n": {number}'), encoding="utf-8"
    )
    done = ctxconf("validate", "--spec", spec, expect=1)
    assert re.search(rf"context\.json:{line}:\d+: ", done.stdout + done.stderr), done
    # A run reads the cases through the same reader: nothing non-finite is ever sent.
    ran = ctxconf("run", "--impl", "reference", "--spec", spec, expect=2)
    assert f"context.json:{line}:" in ran.stderr, ran


@pytest.mark.slow
@pytest.mark.parametrize("number", ["1.0e+400", ".nan", "-.inf"])
def test_add_case_refuses_a_non_finite_argument(spec: Path, tmp_path: Path, number: str) -> None:
    new = tmp_path / "new.yaml"
    new.write_text(
        "name: huge-number\ndescription: A number JSON cannot carry.\nrules: [ctx.same.args]\n"
        f"steps:\n  - {{op: output, tool: grep, args: {{n: {number}}}, text: x}}\n",
        encoding="utf-8",
    )
    done = ctxconf("add-case", new, "--spec", spec, expect=None)
    assert done.returncode in (1, 2), done
    assert re.search(r"new\.yaml:5:\d+: .*finite", done.stdout + done.stderr), done
