"""Every spec command and `run --spec` on a broken spec folder: the same one-line message naming
the file, exit 2, never a traceback; and temporary files are never taken for cases."""

from __future__ import annotations

import json
import os
import re
import shutil
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli import ctxconf

pytestmark = pytest.mark.slow  # every command on every broken spec folder


def _dangling(spec: Path) -> str:
    (spec / "conformance" / "zz.json").symlink_to(spec / "conformance" / "nowhere.json")
    return "zz.json: a symbolic link to a missing file"


def _folder(spec: Path) -> str:
    (spec / "conformance" / "zz.json").mkdir()
    return "zz.json: is a folder, not a regular file"


def _no_conformance(spec: Path) -> str:
    shutil.rmtree(spec / "conformance")
    return "conformance: no such folder"


def _empty_conformance(spec: Path) -> str:
    for path in (spec / "conformance").glob("*.json"):
        path.unlink()
    return "conformance: holds no case file"


def _fifo_loop(spec: Path) -> str:
    (spec / "loop.json").unlink()
    os.mkfifo(spec / "loop.json")
    return "loop.json: is a FIFO, not a regular file"


def _duplicate_key(spec: Path) -> str:
    loop = spec / "loop.json"
    text = loop.read_text(encoding="utf-8").replace('"context": {', '"context": {"note": 1,', 1)
    loop.write_text(text, encoding="utf-8")
    return "/context/note: this key is given twice"


def _latin1_case_file(spec: Path) -> str:
    (spec / "conformance" / "zz.json").write_bytes(b'{"area": "caf\xe9"}')
    return "zz.json:1:14: not UTF-8 text"


def _unreadable(spec: Path) -> str:
    (spec / "conformance" / "context.json").chmod(0)
    return "context.json: cannot be read: Permission denied"


def _file_loop(spec: Path) -> str:
    (spec / "conformance" / "a.json").symlink_to("b.json")
    (spec / "conformance" / "b.json").symlink_to("a.json")
    return "conformance/a.json: cannot be read: Too many levels of symbolic links"


def _folder_loop(spec: Path) -> str:
    shutil.rmtree(spec / "conformance")
    (spec / "conformance").symlink_to("conformance")
    return "spec/conformance: cannot be read: Too many levels of symbolic links"


def _loop_json_loop(spec: Path) -> str:
    (spec / "loop.json").unlink()
    (spec / "loop.json").symlink_to("loop.json")
    return "spec/loop.json: cannot be read: Too many levels of symbolic links"


def _unreadable_conformance(spec: Path) -> str:
    (spec / "conformance").chmod(0)
    return "spec/conformance: cannot be read: Permission denied"


def _unsearchable_conformance(spec: Path) -> str:
    (spec / "conformance").chmod(0o644)  # its names can be listed, its files not reached
    return "conformance/context.json: cannot be read: Permission denied"


def _unreadable_spec(spec: Path) -> str:
    spec.chmod(0)
    return "spec: cannot be read: Permission denied"


def _conformance_is_the_spec(spec: Path) -> str:
    shutil.rmtree(spec / "conformance")
    (spec / "conformance").symlink_to(".")
    return "spec/conformance: is the spec folder itself (a link to it)"


def _conformance_above_the_spec(spec: Path) -> str:
    cases = spec / "conformance"
    for path in cases.iterdir():  # the cases where a link to the folder above finds them
        path.rename(spec.parent / path.name)
    cases.rmdir()
    cases.symlink_to("..")
    return f"spec/conformance: is {spec.parent}, a folder the spec folder is in"


def _names_differ_by_case(spec: Path) -> str:
    conformance = spec / "conformance"
    shutil.copy(conformance / "context.json", conformance / "Context.json")
    return "conformance/context.json: its name differs from Context.json's only by case"


def _names_differ_by_normalisation(spec: Path) -> str:
    conformance = spec / "conformance"
    composed = unicodedata.normalize("NFC", "préfix.json")
    decomposed = unicodedata.normalize("NFD", "préfix.json")
    (conformance / "prefix.json").rename(conformance / composed)
    shutil.copy(conformance / composed, conformance / decomposed)
    first, second = sorted([composed, decomposed])
    return f"conformance/{second}: its name differs from {first}'s only by Unicode normalisation"


BREAKS: dict[str, Callable[[Path], str]] = {
    "dangling symlink": _dangling,
    "folder as case file": _folder,
    "no conformance": _no_conformance,
    "empty conformance": _empty_conformance,
    "loop.json a FIFO": _fifo_loop,
    "duplicate key": _duplicate_key,
    "non-UTF-8 case file": _latin1_case_file,
    "unreadable case file": _unreadable,
    "loop of linked case files": _file_loop,
    "conformance a loop": _folder_loop,
    "loop.json a loop": _loop_json_loop,
    "unreadable conformance": _unreadable_conformance,
    "unsearchable conformance": _unsearchable_conformance,
    "unreadable spec folder": _unreadable_spec,
    "conformance is the spec": _conformance_is_the_spec,
    "conformance above the spec": _conformance_above_the_spec,
    "names differ by case": _names_differ_by_case,
    "names differ by normalisation": _names_differ_by_normalisation,
}
# Breaks that only hold for a process kept to the files' modes (root reads whatever they say).
MODES = {
    "unreadable case file",
    "unreadable conformance",
    "unsearchable conformance",
    "unreadable spec folder",
}
COMMANDS = [
    ["validate"],
    ["lint"],
    ["check"],
    ["regen", "--check"],
    ["regen"],
    ["show", "lines-end-at-newline-only"],
    ["run", "--impl", "reference", "--json", "r.json"],
]


# A problem inside a readable file is one of the problems validate and check report (exit 1);
# a spec they cannot read at all is unusable input (exit 2), as it is for every other command.
CONTENT = {"duplicate key", "non-UTF-8 case file"}


def _message(output: str, expected: str) -> str:
    """The line that says what is wrong, without the command's name: the same for every command."""
    found = [line for line in output.splitlines() if expected in line]
    assert found, output
    return re.sub(r"^ctxconf [a-z-]+: ", "", found[0])


@pytest.mark.parametrize("broken", list(BREAKS), ids=list(BREAKS))
def test_every_command_refuses_a_broken_spec_as_validate_does(spec: Path, broken: str) -> None:
    expected = BREAKS[broken](spec)
    messages = {}
    for command in COMMANDS:
        done = ctxconf(*command, "--spec", spec, cwd=spec.parent, expect=None,
                       unprivileged=broken in MODES)  # fmt: skip
        reports = broken in CONTENT and command[0] in ("validate", "check")
        assert done.returncode == (1 if reports else 2), f"{command}: {done}"
        messages[command[0]] = _message(done.stdout + done.stderr, expected)
    assert len({m.removeprefix("validate: ") for m in messages.values()}) == 1, messages
    assert not (spec.parent / "r.json").exists()


def test_a_spec_text_that_is_not_utf8_stops_lint_and_check(spec: Path) -> None:
    with (spec / "context.md").open("ab") as md:
        md.write(b"\n\xff\n")
    for command in (["lint"], ["check"]):
        done = ctxconf(*command, "--spec", spec, expect=2)
        assert "context.md:" in done.stderr and "not UTF-8 text" in done.stderr


def test_validate_never_says_ok_for_a_spec_without_cases(spec: Path) -> None:
    _empty_conformance(spec)
    done = ctxconf("validate", "--spec", spec, expect=2)
    assert "ok" not in done.stdout


@pytest.mark.parametrize(
    "loop",
    ["[]", "null", "{}", '{"version": "1.0.0"}', '{"version": NaN}', "[" * 3000 + "]" * 3000],
    ids=["array", "null", "empty", "missing keys", "nan", "deep"],
)
def test_run_refuses_a_broken_loop_json_with_its_place(spec: Path, loop: str) -> None:
    (spec / "loop.json").write_text(loop, encoding="utf-8")
    done = ctxconf(
        "run", "--impl", "reference", "--spec", spec, "--json", "r.json", cwd=spec.parent, expect=2
    )
    assert re.search(r"loop\.json:\d+:\d+: ", done.stderr), str(done)


def test_a_wrong_type_in_loop_json_is_named_by_its_pointer(spec: Path) -> None:
    loop = json.loads((spec / "loop.json").read_text(encoding="utf-8"))
    loop["context"]["read"]["window"] = "400"
    (spec / "loop.json").write_text(json.dumps(loop, indent=2), encoding="utf-8")
    for command in (["run", "--impl", "reference", "--json", "r.json"], ["regen"], ["show", "x"]):
        done = ctxconf(*command, "--spec", spec, cwd=spec.parent, expect=2)
        assert "/context/read/window: " in done.stderr, str(done)
    checked = ctxconf("check", "--spec", spec, expect=1)  # a problem check reports
    assert "/context/read/window: " in checked.stdout, str(checked)


def test_regen_and_add_case_write_nothing_when_loop_json_is_invalid(
    spec: Path, tmp_path: Path
) -> None:
    loop = spec / "loop.json"
    loop.write_text(loop.read_text(encoding="utf-8").replace('"version"', '"versoin"', 1))
    before = {p: p.read_bytes() for p in (spec / "conformance").iterdir()}
    ctxconf("regen", "--spec", spec, expect=2)
    new = tmp_path / "new.yaml"
    new.write_text(
        "name: n\ndescription: d\nrules: [ctx.stub.unchanged]\nsteps:\n"
        "  - {op: read, path: a, content: a}\n",
        encoding="utf-8",
    )
    ctxconf("add-case", new, "--spec", spec, expect=2)
    assert {p: p.read_bytes() for p in (spec / "conformance").iterdir()} == before


# --- temporary files -----------------------------------------------------------------------------


def _counts(spec: Path) -> tuple[str, str, str]:
    validated = ctxconf("validate", "--spec", spec).stdout.strip().splitlines()[-1]
    ran = (
        ctxconf("run", "--impl", "reference", "--spec", spec, "--json", "r.json", cwd=spec.parent)
        .stdout.strip()
        .splitlines()[-1]
    )
    checked = ctxconf("check", "--spec", spec).stdout

    def untimed(text: str) -> str:
        return re.sub(r"\d+\.\d+ ?s\b", "", text)

    return untimed(validated), untimed(ran), untimed(checked)


def test_stale_temporary_files_are_not_cases(spec: Path) -> None:
    before = _counts(spec)
    conformance = spec / "conformance"
    copy = (conformance / "context.json").read_text(encoding="utf-8")
    # What an interrupted writer leaves: whole or cut short, named .json or .tmp.
    (conformance / ".context.json.k3j2x.json").write_text(copy, encoding="utf-8")
    (conformance / ".context.json.a8b7c.tmp").write_text(copy[:100], encoding="utf-8")
    assert _counts(spec) == before


def test_the_next_write_removes_a_stale_temporary_file(spec: Path) -> None:
    conformance = spec / "conformance"
    stale = conformance / ".context.json.k3j2x.tmp"
    stale.write_text("{", encoding="utf-8")
    os.utime(stale, (1, 1))  # left long ago by a process that was killed
    fresh = conformance / ".context.json.q1w2e.tmp"
    fresh.write_text("{", encoding="utf-8")  # perhaps a write in progress: left alone
    cases = conformance / "context.json"
    data = json.loads(cases.read_text(encoding="utf-8"))
    case = next(c for c in data["cases"] if c.get("origin") != "authors")
    case["expect"][0] = "stale"
    cases.write_text(json.dumps(data, indent=2), encoding="utf-8")
    ctxconf("regen", "--spec", spec)
    assert not stale.exists() and fresh.exists()
    leftovers = {p.name for p in conformance.iterdir()} - {
        "context.json",
        "prefix.json",
        "history.json",
        fresh.name,
    }
    assert not leftovers
