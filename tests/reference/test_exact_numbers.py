"""Numbers by the exact decimal value their JSON text writes, from the case file to the
implementation and back: read without rounding to a double, compared by value, and written as
the text they were read from."""

from __future__ import annotations

import sys
from decimal import Decimal
from pathlib import Path

import pytest

from ctxconf.reference import Session
from ctxconf.runner.transports.base import encode_message
from ctxconf.userfiles import limits
from tests.cli import ctxconf

TEXT = '{"a": [12345678901234567890.0, 1e16, 1.50, -0.0, 2E-3, 7]}'
CASE = "listing-large-integer-with-a-fraction"


def test_a_number_is_written_as_it_was_read() -> None:
    value = limits.parse_json(TEXT, exact=True)
    assert value["a"][0] == 12345678901234567890
    assert value["a"][1] != 10000000000000001
    assert limits.dumps(value) == TEXT
    assert encode_message(value) == TEXT.replace(", ", ",").replace(": ", ":").encode()


def test_a_plain_decimal_is_written_by_its_digits() -> None:
    assert limits.dumps({"n": Decimal("0.1")}, sort_keys=True) == '{"n": 0.1}'
    with pytest.raises(TypeError):
        limits.dumps({"n": Decimal("NaN")})


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("12345678901234567890", "12345678901234567890.0", True),
        ("100", "1e2", True),
        ("1.5", "1.50", True),
        ("10000000000000001", "1e16", False),
        ("0.1", "0.10000000000000001", False),
    ],
)
def test_listing_arguments_compare_numbers_by_exact_value(
    first: str, second: str, same: bool
) -> None:
    session = Session()
    session.output("grep", limits.parse_json(f'{{"n": {first}}}', exact=True), "x")
    again = session.output("grep", limits.parse_json(f'{{"n": {second}}}', exact=True), "x")
    assert ("Same result as" in again) is same


@pytest.mark.slow
def test_a_run_over_cmd_sends_the_numbers_text(tmp_path: Path) -> None:
    serve = f"cmd:{sys.executable} -m ctxconf serve --stdio"
    ctxconf("run", "--impl", serve, cwd=tmp_path)
    results = (tmp_path / "reports" / "results.json").read_text(encoding="utf-8")
    assert '"n": 12345678901234567890.0' in results


@pytest.mark.slow
def test_add_case_and_show_keep_the_numbers_text(spec: Path, tmp_path: Path) -> None:
    new = tmp_path / "new.yaml"
    new.write_text(
        "name: exact-numbers\ndescription: Numbers kept as written.\nrules: [ctx.same.args]\n"
        "steps:\n  - {op: output, tool: grep, args: {n: 12345678901234567890.0, m: 1.50},"
        " text: x}\n",
        encoding="utf-8",
    )
    ctxconf("add-case", new, "--spec", spec)
    written = (spec / "conformance" / "context.json").read_text(encoding="utf-8")
    assert '"n": 12345678901234567890.0' in written and '"m": 1.50' in written
    shown = ctxconf("show", "exact-numbers", "--spec", spec).stdout
    assert '"n": 12345678901234567890.0' in shown
    assert f'"{CASE}"' in written  # the bundled case of the rule is there too
