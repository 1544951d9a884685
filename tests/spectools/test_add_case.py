"""add-case, show and regen --accept-authors as a spec editor meets them: problems placed in the
YAML the editor wrote, near names suggested, authors' cases changed only when asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxconf.reference import OPS_BY_AREA
from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.spectools.regen import splice
from ctxconf.userfiles import limits
from tests.cli import ctxconf


def _yaml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "new.yaml"
    path.write_text(text, encoding="utf-8")
    return path


_HEAD = "name: added\ndescription: d\nrules: [ctx.stub.unchanged]\nsteps:\n"


def test_an_unknown_op_names_the_known_ops_at_its_place(spec: Path, tmp_path: Path) -> None:
    new = _yaml(tmp_path, _HEAD + "  - {op: read, path: a, content: a}\n  - {op: raed, path: a}\n")
    done = ctxconf("add-case", new, "--spec", spec, expect=1)
    assert f"{new}:6:10: unknown op 'raed'" in done.stderr, str(done)
    assert all(op in done.stderr for op in OPS_BY_AREA["context"])
    assert "KeyError" not in done.stderr


@pytest.mark.slow
def test_an_unknown_rule_anchor_is_refused_with_the_nearest(spec: Path, tmp_path: Path) -> None:
    new = _yaml(
        tmp_path,
        "name: added\ndescription: d\nrules: [ctx.stub.unchanged, ctx.stub.unchaged]\nsteps:\n"
        "  - {op: read, path: a, content: a}\n",
    )
    done = ctxconf("add-case", new, "--spec", spec, expect=1)
    assert f"{new}:3:" in done.stderr and "unknown rule anchor 'ctx.stub.unchaged'" in done.stderr
    assert "did you mean ctx.stub.unchanged" in done.stderr


@pytest.mark.slow
def test_a_schema_problem_is_placed_in_the_yaml(spec: Path, tmp_path: Path) -> None:
    new = _yaml(tmp_path, _HEAD + "  - op: read\n    path: a\n    content: 42\n")
    done = ctxconf("add-case", new, "--spec", spec, expect=1)
    # The reference may refuse the number first, or the schema; either way at the YAML's place.
    assert f"{new}:" in done.stderr and "context.json:" not in done.stderr, str(done)


def test_a_second_case_in_a_list_is_placed_by_its_own_line(spec: Path, tmp_path: Path) -> None:
    one = "- name: first\n  description: d\n  rules: [ctx.stub.unchanged]\n  steps:\n"
    one += "    - {op: read, path: a, content: a}\n"
    two = one.replace("first", "second").replace("op: read", "op: nope")
    new = _yaml(tmp_path, one + two)
    done = ctxconf("add-case", new, "--spec", spec, expect=1)
    assert f"{new}:10:12: unknown op 'nope'" in done.stderr, str(done)


@pytest.mark.slow
def test_a_missing_field_is_named_as_the_schema_names_it(spec: Path, tmp_path: Path) -> None:
    new = _yaml(tmp_path, _HEAD + "  - {op: read, path: a}\n")
    done = ctxconf("add-case", new, "--spec", spec, expect=1)
    assert f"{new}:5:5: 'content' is a required property" in done.stderr, str(done)
    assert "KeyError" not in done.stderr


@pytest.mark.slow
def test_a_case_file_shaped_yaml_goes_to_its_areas_file(spec: Path, tmp_path: Path) -> None:
    new = _yaml(
        tmp_path,
        "area: prefix\ncases:\n  - name: added\n    description: d\n"
        "    rules: [pfx.note.date]\n    steps:\n"
        '      - {op: start, model: m, date: "2026-01-01", mode: code, tools: []}\n'
        "      - {op: user, text: hi}\n",
    )
    done = ctxconf("add-case", new, "--spec", spec)
    assert "to " in done.stdout and "prefix.json: added" in done.stdout, str(done)
    cases = json.loads((spec / "conformance" / "prefix.json").read_text(encoding="utf-8"))
    assert cases["cases"][-1]["name"] == "added"
    assert len(cases["cases"][-1]["expect"]) == 2


@pytest.mark.slow
def test_a_case_file_of_another_area_is_refused(spec: Path, tmp_path: Path) -> None:
    new = _yaml(tmp_path, "area: prefix\ncases: []\n")
    target = spec / "conformance" / "context.json"
    done = ctxconf("add-case", new, "--spec", spec, "--to", target, expect=1)
    assert f"{new}:1:7: these cases are of the area 'prefix'" in done.stderr, str(done)


@pytest.mark.slow
def test_a_date_in_the_yaml_stays_the_text_written(spec: Path, tmp_path: Path) -> None:
    new = _yaml(tmp_path, _HEAD.replace("description: d", "description: 2024-01-01"))
    new.write_text(new.read_text() + "  - {op: read, path: a, content: a}\n", encoding="utf-8")
    done = ctxconf("add-case", new, "--spec", spec)
    assert "added 1 case to" in done.stdout
    cases = json.loads((spec / "conformance" / "context.json").read_text(encoding="utf-8"))
    assert cases["cases"][-1]["description"] == "2024-01-01"


@pytest.mark.slow
def test_add_case_leaves_no_temporary_file(spec: Path, tmp_path: Path) -> None:
    new = _yaml(tmp_path, _HEAD + "  - {op: read, path: a, content: a}\n")
    before = sorted(p.name for p in (spec / "conformance").iterdir())
    ctxconf("add-case", new, "--spec", spec)
    bad = _yaml(tmp_path, _HEAD.replace("added", "other") + "  - {op: read, id: '#G1'}\n")
    ctxconf("add-case", bad, "--spec", spec, expect=1)
    assert sorted(p.name for p in (spec / "conformance").iterdir()) == before


@pytest.mark.slow
def test_show_suggests_the_names_near_a_mistyped_one() -> None:
    done = ctxconf("show", "reread-unchaged-is-stub", expect=2)
    assert "did you mean: reread-unchanged-is-stub" in done.stderr


# --- regen --------------------------------------------------------------------------------------


def _authors_edit(spec: Path) -> None:
    loop = spec / "loop.json"
    text = loop.read_text(encoding="utf-8")
    loop.write_text(text.replace('"Same result as {target}."', '"Same as {target}."', 1))


@pytest.mark.slow
def test_accept_authors_rewrites_their_cases_and_accounts_for_each(spec: Path) -> None:
    _authors_edit(spec)
    refused = ctxconf("regen", "--spec", spec, expect=1)
    assert "disagrees with the authors' case" in refused.stdout
    done = ctxconf("regen", "--accept-authors", "--spec", spec)
    assert "same-listing-is-stub: authors' case changed: review it" in done.stdout
    assert "  step " in done.stdout and "+" in done.stdout  # which step, and its diff
    cases = json.loads((spec / "conformance" / "context.json").read_text(encoding="utf-8"))
    authors = [c for c in cases["cases"] if c.get("origin") == "authors"]
    assert not any("Same result as" in text for c in authors for text in c["expect"])
    ctxconf("regen", "--check", "--spec", spec)  # nothing is left to change


def test_splice_keeps_every_byte_outside_the_edits() -> None:
    text = "0123456789"
    assert splice(text, [(8, 9, "X"), (1, 3, ""), (5, 5, "++")]) == "034++567X9"
    assert splice(text, []) == text


@pytest.mark.slow
def test_regen_rewrites_many_stale_cases_in_one_pass(spec: Path) -> None:
    cases = spec / "conformance" / "context.json"
    data = limits.parse_json(cases.read_text(encoding="utf-8"), exact=True)
    stale = [c for c in data["cases"] if c.get("origin") != "authors"]
    for case in stale:
        case["expect"] = ["stale"] * len(case["steps"])
    cases.write_text(limits.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    done = ctxconf("regen", "--spec", spec)
    assert f"in {len(stale)} cases;" in done.stdout
    assert cases.read_text(encoding="utf-8") == (
        bundled_spec_dir() / "conformance" / "context.json"
    ).read_text(encoding="utf-8")
