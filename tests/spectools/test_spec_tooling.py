"""regen, lint, check, show and add-case, run as a spec editor runs them on a copy of the spec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxconf.userfiles import limits
from tests.cli import ctxconf


def _edit_json(path: Path, edit) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


@pytest.mark.slow
def test_check_passes_on_the_bundled_spec() -> None:
    done = ctxconf("check")
    assert "ctxconf check passed" in done.stdout


@pytest.mark.slow
def test_check_passes_on_a_copy_elsewhere(spec: Path) -> None:
    ctxconf("check", "--spec", spec, cwd=spec.parent)


@pytest.mark.slow
def test_regen_changes_exactly_the_affected_expectations(spec: Path) -> None:
    cases = spec / "conformance" / "context.json"
    before = cases.read_text(encoding="utf-8")
    loop = spec / "loop.json"
    loop.write_text(
        loop.read_text(encoding="utf-8").replace(
            '"same_result": "Same result as {target}."', '"same_result": "Same as {target}."'
        ),
        encoding="utf-8",
    )
    checked = ctxconf("regen", "--check", "--spec", spec, expect=1)
    assert "listing-compared-with-latest: would change" in checked.stdout
    assert "same-listing-is-stub: disagrees with the authors' case" in checked.stdout
    assert cases.read_text(encoding="utf-8") == before, "--check must write nothing"
    ctxconf("regen", "--spec", spec, expect=1)  # 1: the authors' cases disagree
    after = cases.read_text(encoding="utf-8")
    pairs = zip(before.split("\n"), after.split("\n"), strict=True)
    changed = [(old, new) for old, new in pairs if old != new]
    assert len(before.split("\n")) == len(after.split("\n"))
    assert changed and all("Same result as" in old and "Same as" in new for old, new in changed)
    authors = [c for c in json.loads(after)["cases"] if c.get("origin") == "authors"]
    assert any("Same result as" in text for c in authors for text in c["expect"]), (
        "the authors' cases are never rewritten"
    )


@pytest.mark.slow
def test_regen_without_changes_keeps_the_file_byte_for_byte(spec: Path) -> None:
    cases = spec / "conformance" / "context.json"
    # An editor's own formatting: compact separators, which a re-dump would not keep.
    data = limits.parse_json(cases.read_text(encoding="utf-8"), exact=True)
    cases.write_text(limits.dumps(data, ensure_ascii=True, separators=(",", ":")), encoding="utf-8")
    before = cases.read_bytes()
    done = ctxconf("regen", "--spec", spec)
    assert "0 files written" in done.stdout
    assert cases.read_bytes() == before


@pytest.mark.slow
def test_regen_fills_a_new_case_and_keeps_unknown_fields(spec: Path) -> None:
    cases = spec / "conformance" / "context.json"

    def add(data):  # type: ignore[no-untyped-def]
        data["cases"].append(
            {
                "name": "fresh",
                "description": "d",
                "rules": ["ctx.stub.unchanged"],
                "x-editor-note": "kept",
                "steps": [{"op": "read", "path": "a", "content": "a\n"}],
                "expect": [],
            }
        )

    _edit_json(cases, add)
    ctxconf("regen", "--spec", spec)
    fresh = json.loads(cases.read_text(encoding="utf-8"))["cases"][-1]
    assert fresh["x-editor-note"] == "kept"
    assert fresh["expect"] == ["[#0001 a lines 1-1 of 1 sha 87428fc5]\n1: a"]


@pytest.mark.slow
def test_lint_reports_bad_id_quote_and_rule_without_case(spec: Path) -> None:
    cases = spec / "conformance" / "context.json"
    text = cases.read_text(encoding="utf-8").replace('"#a001"', '"#g001"', 1)
    cases.write_text(text, encoding="utf-8")
    md = spec / "context.md"
    md_text = md.read_text(encoding="utf-8")
    assert "`cap.max_lines` (400)" in md_text
    md.write_text(
        md_text.replace("`cap.max_lines` (400)", "`cap.max_lines` (500)", 1)
        + "\n### `ctx.extra.rule` A rule nobody tests\n\nText.\n",
        encoding="utf-8",
    )
    done = ctxconf("lint", "--spec", spec, expect=1)
    id_line = next(n for n, line in enumerate(text.split("\n"), 1) if '"#g001"' in line)
    assert (
        f"context.json:{id_line}: id '#g001' is not # and 4 or more lowercase hex digits"
        in done.stdout
    )
    assert "`cap.max_lines` is quoted as (500) but loop.json has 400" in done.stdout
    assert "rule ctx.extra.rule has no case" in done.stdout
    assert "context.md:" in done.stdout


@pytest.mark.slow
def test_lint_catches_an_example_that_left_its_template(spec: Path) -> None:
    md = spec / "context.md"
    text = md.read_text(encoding="utf-8")
    assert "Unchanged since #" in text
    md.write_text(text.replace("Unchanged since #", "Unchanged from #", 1), encoding="utf-8")
    done = ctxconf("lint", "--spec", spec, expect=1)
    assert "matches no template of loop.json" in done.stdout and "Unchanged from #" in done.stdout


@pytest.mark.slow
def test_lint_catches_a_case_naming_an_unknown_rule_and_a_version_mismatch(spec: Path) -> None:
    _edit_json(
        spec / "conformance" / "context.json",
        lambda d: (d["cases"][0]["rules"].append("ctx.no.such"), d.update(version="9.9.9")),
    )
    done = ctxconf("lint", "--spec", spec, expect=1)
    assert "names rule 'ctx.no.such', which no spec text declares" in done.stdout
    assert "version 9.9.9 differs from loop.json's" in done.stdout


@pytest.mark.slow
def test_lint_catches_an_unused_template(spec: Path) -> None:
    _edit_json(
        spec / "loop.json", lambda d: d["context"]["texts"].update(orphan="nobody renders me")
    )
    done = ctxconf("lint", "--spec", spec, expect=1)
    assert "template 'orphan' is rendered nowhere" in done.stdout


@pytest.mark.slow
def test_check_fails_on_a_stale_expectation(spec: Path) -> None:
    loop = spec / "loop.json"
    loop.write_text(
        loop.read_text(encoding="utf-8").replace("(no output)", "(nothing)"), encoding="utf-8"
    )
    done = ctxconf("check", "--spec", spec, expect=1)
    assert "empty-output: 1 expected text is stale" in done.stdout
    assert "FAILED" in done.stdout


def test_show_prints_whitespace_visibly() -> None:
    done = ctxconf("show", "lines-end-at-newline-only")
    assert "⟨U+2028⟩" in done.stdout
    assert "1: one␍" in ctxconf("show", "carriage-return-is-shown").stdout
    missing = ctxconf("show", "no-such-case", expect=2)
    assert "no case or rule named 'no-such-case'" in missing.stderr


def test_add_case_fills_expectations_and_refuses_a_duplicate(spec: Path, tmp_path: Path) -> None:
    new = tmp_path / "new.yaml"
    new.write_text(
        "name: added\ndescription: d\nrules: [ctx.stub.unchanged]\nsteps:\n"
        '  - {op: read, path: a.md, content: "a\\n"}\n'
        '  - {op: read, path: a.md, content: "a\\n"}\n',
        encoding="utf-8",
    )
    ctxconf("add-case", new, "--spec", spec)
    added = json.loads((spec / "conformance" / "context.json").read_text(encoding="utf-8"))[
        "cases"
    ][-1]
    assert added["name"] == "added"
    assert added["expect"][1].endswith("Unchanged since #0001, which already shows lines 1-1.")
    again = ctxconf("add-case", new, "--spec", spec, expect=1)
    assert "already has a case named 'added'" in again.stderr


def test_add_case_reports_bad_yaml_with_its_place(spec: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nsteps: [\n", encoding="utf-8")
    done = ctxconf("add-case", bad, "--spec", spec, expect=1)
    assert f"{bad}:3:1: not valid YAML" in done.stderr


@pytest.mark.slow
def test_add_case_refuses_a_step_the_schema_refuses(spec: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "name: odd\ndescription: d\nrules: [ctx.stub.unchanged]\nsteps:\n"
        "  - {op: read, id: '#G001', path: a, content: ''}\n",
        encoding="utf-8",
    )
    done = ctxconf("add-case", bad, "--spec", spec, expect=1)
    # Placed where the user wrote it: the id's line and column in the YAML.
    assert f"{bad}:5:20: '#G001'" in done.stderr, str(done)


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [["regen"], ["regen", "--check"], ["lint"], ["show", "x"], ["validate"], ["check"]],
    ids=" ".join,
)
def test_a_case_file_that_is_not_json_is_named_with_its_place(
    spec: Path, command: list[str]
) -> None:
    broken = spec / "conformance" / "broken.json"
    broken.write_text('{"area": "context", "cases": [\n  {"name": "x",, }\n]}\n', encoding="utf-8")
    done = ctxconf(*command, "--spec", spec, expect=None)
    assert done.returncode in (1, 2), str(done)
    assert "broken.json:2:16" in done.stdout + done.stderr, str(done)
