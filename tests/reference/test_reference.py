"""The reference reproduces every bundled case, the authors' cases byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxconf.reference import ContextConfig, PatchFile, Session, run_case
from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.userfiles.limits import parse_exact_float
from tests.paths import ROOT

CASE_FILE = bundled_spec_dir() / "conformance" / "context.json"
CASES: list[dict[str, Any]] = json.loads(
    CASE_FILE.read_text(encoding="utf-8"), parse_float=parse_exact_float
)["cases"]

SEEDS = ROOT.parent / "shared" / "seeds" / "context.json"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_reference_passes_case(case: dict[str, Any]) -> None:
    assert run_case(case) == case["expect"]


@pytest.mark.skipif(not SEEDS.exists(), reason="the source material is not beside this checkout")
def test_authors_cases_are_the_source_cases() -> None:
    source = json.loads(SEEDS.read_text(encoding="utf-8"))["cases"]
    authors = [c for c in CASES if c.get("origin") == "authors"]
    assert len(authors) == len(source) == 11
    for ours, theirs in zip(authors, source, strict=True):
        assert ours["steps"] == theirs["steps"]
        assert ours["expect"] == theirs["expect"]
        assert ours.get("limits") == theirs.get("limits")


def test_session_numbers_results_when_no_id_is_given() -> None:
    session = Session()
    assert session.output("bash", {}, "hi") == "[#0001]\nhi"
    assert session.read("a.md", "a\n").startswith("[#0002 a.md lines 1-1 of 1 sha ")
    assert session.compact() != ""
    assert session.output("bash", {}, "x") == "[#0003]\nx"


def test_session_keeps_every_result_in_full() -> None:
    session = Session(limits={"max_lines": 2, "head_lines": 1, "tail_lines": 1})
    text = "1\n2\n3\n4"
    assert session.output("bash", {}, text, id="#abcd") == (
        "[#abcd]\n1\n[2 lines elided, full output #abcd]\n4"
    )
    assert session.stored("#abcd") == text


def test_patch_file_order_is_kept() -> None:
    text = Session().apply_patch([PatchFile("b.md", None, "b\n"), PatchFile("a.md", "a\n", None)])
    first, created, deleted = text.split("\n")
    assert first == "[#0001]"
    assert created.startswith("[b.md sha ") and created.endswith("] Created, 1 lines.")
    assert deleted == "[a.md deleted]"


@pytest.mark.parametrize("offset, limit", [(0, None), (1, 0), (-3, 5)])
def test_read_refuses_offsets_and_limits_below_one(offset: int, limit: int | None) -> None:
    with pytest.raises(ValueError):
        Session().read("a.md", "a\n", offset=offset, limit=limit)


def test_config_change_changes_the_text(tmp_path: Path) -> None:
    loop = json.loads((bundled_spec_dir() / "loop.json").read_text(encoding="utf-8"))
    loop["context"]["texts"]["same_result"] = "Same as {target}."
    loop["context"]["ids"]["digits"] = 6
    session = Session(ContextConfig.from_loop(loop))
    session.output("list", {"path": "."}, "a")
    assert session.output("list", {"path": "."}, "a") == "[#000002] Same as #000001."


def test_an_id_is_never_taken_twice() -> None:
    session = Session()
    session.output("bash", {}, "first", id="#0002")
    with pytest.raises(ValueError, match="#0002 is already taken"):
        session.output("bash", {}, "second")
