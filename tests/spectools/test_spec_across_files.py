"""A spec folder judged across its files: a case file whose name is not UTF-8 is read and shown
escaped by every command; one case name in two files of an area is refused; a spec text that
cannot be read stops the commands that need its rules and is a warning for those it only
decorates."""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from ctxconf.runner.results import load
from ctxconf.spectext.decisions import load_decisions
from tests.cli import ctxconf

pytestmark = pytest.mark.slow  # every command on each spec folder

NOT_UTF8 = os.fsdecode(b"caf\xe9.json")  # a name in Latin-1: not UTF-8
SHOWN = "caf\\xe9.json"


def _one_case_file(spec: Path, name: str, case_name: str) -> dict[str, Any]:
    """A case file holding a copy of a context case under a new name, tagged with no decision
    (so the Decisions tables stay true)."""
    source = json.loads((spec / "conformance" / "context.json").read_text(encoding="utf-8"))
    decisions = set(load_decisions(spec))
    case = next(
        c
        for c in source["cases"]
        if not set(c["rules"]) & decisions and c.get("origin") != "authors"
    )
    data = {**source, "cases": [{**case, "name": case_name}]}
    (spec / "conformance" / name).write_text(json.dumps(data, indent=2), encoding="utf-8")
    return dict(case)


def test_a_case_file_whose_name_is_not_utf8_is_read_and_shown_escaped(spec: Path) -> None:
    _one_case_file(spec, NOT_UTF8, "copied-under-a-latin-1-name")
    cwd = spec.parent
    validated = ctxconf("validate", "--spec", spec, cwd=cwd)
    assert validated.stdout.endswith(
        f"ok: {len(os.listdir(spec / 'conformance')) + 1} files valid\n"
    )
    ran = ctxconf("run", "--impl", "reference", "--spec", spec, "--json", "r.json", cwd=cwd)
    assert " 0 failed" in ran.stdout
    (copied,) = [c for c in load(cwd / "r.json").cases if c.name == "copied-under-a-latin-1-name"]
    assert copied.file == SHOWN
    shown = ctxconf("show", "copied-under-a-latin-1-name", "--spec", spec, cwd=cwd)
    assert shown.stdout.startswith(f"spec/conformance/{SHOWN}\n")
    for command in (["regen", "--check"], ["lint"], ["check"]):
        ctxconf(*command, "--spec", spec, cwd=cwd)
    ctxconf("report", "r.json", cwd=cwd)


def test_a_case_name_two_files_of_an_area_hold_is_refused(spec: Path) -> None:
    # The same cases under a name that only looks like the first: contéxt.json, decomposed.
    conformance = spec / "conformance"
    lookalike = unicodedata.normalize("NFD", "contéxt.json")
    (conformance / lookalike).write_bytes((conformance / "context.json").read_bytes())
    text = (conformance / "context.json").read_text(encoding="utf-8")
    first = json.loads(text)["cases"][0]
    line = text[: text.index(f'"name": "{first["name"]}"')].count("\n") + 1
    validated = ctxconf("validate", "--spec", spec, cwd=spec.parent, expect=1)
    said = (
        f"spec/conformance/{lookalike}:{line}:15: /cases/0/name: the case {first['name']!r} is "
        f"already in spec/conformance/context.json (/cases/0), of the same area"
    )
    assert said in validated.stdout, validated
    ran = ctxconf("run", "--impl", "reference", "--spec", spec, "--json", "r.json",
                  cwd=spec.parent, expect=2)  # fmt: skip
    assert (
        f"ctxconf run: spec/conformance/{lookalike}: /cases/0/name: the case {first['name']!r} "
        "of the area 'context' is already in spec/conformance/context.json (/cases/0)"
    ) in ran.stderr
    assert not (spec.parent / "r.json").exists()
    checked = ctxconf("check", "--spec", spec, cwd=spec.parent, expect=1)
    assert "validate: " + said in checked.stdout


def test_one_case_file_given_twice_is_refused(spec: Path) -> None:
    cases = spec / "conformance" / "context.json"
    done = ctxconf("run", "--impl", "reference", "--cases", cases, cases, "--json", "r.json",
                   cwd=spec.parent, expect=2)  # fmt: skip
    assert "is already in spec/conformance/context.json (/cases/0): it would run twice" in (
        done.stderr
    )


def test_add_case_refuses_a_name_another_case_file_of_the_area_holds(spec: Path) -> None:
    _one_case_file(spec, "more-context.json", "held-by-the-other-file")
    new = spec.parent / "new.yaml"
    new.write_text(
        "name: held-by-the-other-file\ndescription: d\nrules: [ctx.stub.unchanged]\nsteps:\n"
        "  - {op: read, path: a, content: a}\n",
        encoding="utf-8",
    )
    before = (spec / "conformance" / "context.json").read_bytes()
    done = ctxconf("add-case", new, "--spec", spec, cwd=spec.parent, expect=1)
    assert "spec/conformance/more-context.json already has a case named " in done.stderr
    assert (spec / "conformance" / "context.json").read_bytes() == before


def _folder_text(spec: Path) -> str:
    (spec / "context.md").unlink()
    (spec / "context.md").mkdir()
    return "spec/context.md: is a folder, not a regular file"


def _unreadable_text(spec: Path) -> str:
    (spec / "context.md").chmod(0)
    return "spec/context.md: cannot be read: Permission denied"


def _latin1_text(spec: Path) -> str:
    with (spec / "context.md").open("ab") as text:
        text.write(b"\ncaf\xe9\n")
    return "spec/context.md:"


TEXTS = {"a folder": _folder_text, "unreadable": _unreadable_text, "not UTF-8": _latin1_text}


@pytest.mark.parametrize("broken", list(TEXTS), ids=list(TEXTS))
def test_a_spec_text_that_cannot_be_read(spec: Path, broken: str) -> None:
    said = TEXTS[broken](spec)
    cwd, kept = spec.parent, broken == "unreadable"
    new = cwd / "new.yaml"
    new.write_text(
        "name: brand-new\ndescription: d\nrules: [ctx.stub.unchanged]\nsteps:\n"
        "  - {op: read, path: a, content: a}\n",
        encoding="utf-8",
    )
    # Those that need its rules refuse, naming it.
    for command in (["lint"], ["check"], ["show", "ctx.stub.unchanged"], ["add-case", new]):
        done = ctxconf(*command, "--spec", spec, cwd=cwd, expect=2, unprivileged=kept)
        assert said in done.stderr, done
    # Those it only decorates say so, and go on.
    ran = ctxconf("run", "--impl", "reference", "--spec", spec, "--json", "r.json", "-q",
                  cwd=cwd, unprivileged=kept)  # fmt: skip
    assert f"warning: {said}" in ran.stderr and "its rules and decisions are not shown" in (
        ran.stderr
    )
    reported = ctxconf("report", "r.json", cwd=cwd, unprivileged=kept)
    assert f"warning: {said}" in reported.stderr and "its rules are not in the page" in (
        reported.stderr
    )
    # Those that do not read it are not stopped by it.
    ctxconf("validate", "--spec", spec, cwd=cwd, unprivileged=kept)
    ctxconf("show", "reread-unchanged-is-stub", "--spec", spec, cwd=cwd, unprivileged=kept)
