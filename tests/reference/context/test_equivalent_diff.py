"""The equivalent-diff check: strict hunk-by-hunk application, context, and the verdict itself.

Expected texts come from the reference session; the "actual" texts are what another diff
algorithm could answer, written out here as an implementation would send them.
"""

from __future__ import annotations

import difflib
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ctxconf.reference import PatchFile, Session
from ctxconf.reference.context.equivalent_diff import (
    DiffError,
    apply_hunks,
    check,
    check_context,
    lines_with_ends,
    parse_hunks,
)

MARK = "\\ No newline at end of file"


def _edit(before: str, after: str, note: str | None = None) -> tuple[dict[str, Any], str]:
    step: dict[str, Any] = {"op": "edit", "id": "#e001", "path": "f.txt", "before": before,
                            "after": after}
    if note is not None:
        step["note"] = note
    return step, Session().edit("f.txt", before, after, note=note, id="#e001")


def _bracket(text: str) -> str:
    return text.split("\n", 1)[0]


def _numbered(count: int) -> str:
    return "".join(f"line {n}\n" for n in range(1, count + 1))


# -- applying hunks --------------------------------------------------------------------------


def test_reference_diff_applies_to_before_and_gives_after() -> None:
    before = _numbered(30)
    after = before.replace("line 4\n", "four\n").replace("line 20\n", "").replace(
        "line 29\n", "line 29\nextra\n"
    )
    _, text = _edit(before, after)
    hunks = parse_hunks(text.split("\n")[1:])
    assert len(hunks) == 3  # lines 20 and 29 are 8 apart: two hunks
    assert apply_hunks(before, hunks) == after
    check_context(hunks, 30)


@pytest.mark.parametrize(
    ("before", "after", "body"),
    [
        ("a\n", "b\n", ["@@ -1 +1 @@", "-a", "+b"]),
        ("", "a\nb\n", ["@@ -0,0 +1,2 @@", "+a", "+b"]),
        ("a\nb\n", "", ["@@ -1,2 +0,0 @@", "-a", "-b"]),
        ("a\nb", "a\nb\n", ["@@ -1,2 +1,2 @@", " a", "-b", MARK, "+b"]),
        ("a\nb\n", "a\nc", ["@@ -1,2 +1,2 @@", " a", "-b", "+c", MARK]),
    ],
    ids=["one-line-ranges", "into-empty", "to-empty", "gains-final-newline", "loses-final-newline"],
)
def test_apply_hunk_forms(before: str, after: str, body: list[str]) -> None:
    assert apply_hunks(before, parse_hunks(body)) == after


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (["@@ -1 +1 @@", "-a", "+b", "+c"], "expected a hunk header"),
        (["@@ -1,2 +1,2 @@", "-a", "+b"], "has 1 old and 1 new lines"),
        (["@@ -1 +1 @@", "*a", "+b"], "expected a hunk line"),
        (["@@ one @@", "-a"], "expected a hunk header"),
        (["@@ -1 +1 @@", " a"], "changes nothing"),
        ([], "no hunk"),
    ],
    ids=["extra-line", "short-hunk", "bad-tag", "bad-header", "no-change", "empty"],
)
def test_malformed_diffs_are_refused(body: list[str], message: str) -> None:
    with pytest.raises(DiffError, match=message):
        parse_hunks(body)


def test_application_is_strict_about_place_and_context() -> None:
    before = "x\na\nx\nb\n"
    # The same lines exist at line 3, but the header says line 1: no fuzz, no search.
    with pytest.raises(DiffError, match="old line 2 is 'a"):
        apply_hunks(before, parse_hunks(["@@ -1,2 +1,2 @@", " x", "-b", "+c"]))
    with pytest.raises(DiffError, match="says new line 2"):
        apply_hunks(before, parse_hunks(["@@ -1 +2 @@", "-x", "+y"]))
    with pytest.raises(DiffError, match="past the end"):
        apply_hunks(before, parse_hunks(["@@ -4,2 +4,2 @@", " b", "-c", "+d"]))
    with pytest.raises(DiffError, match="inside an earlier one"):
        apply_hunks(before, parse_hunks(["@@ -2 +2 @@", "-a", "+y", "@@ -1 +1 @@", "-x", "+z"]))


def test_a_line_ends_at_newline_only() -> None:
    assert lines_with_ends("a\rb\u2028c\n\x0cd") == ["a\rb\u2028c\n", "\x0cd"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (["@@ -2,6 +2,6 @@", " line 2", " line 3", " line 4", "-line 5", "+five", " line 6",
          " line 7"], "2 lines of context after"),
        (["@@ -3,6 +3,6 @@", " line 3", " line 4", "-line 5", "+five", " line 6", " line 7",
          " line 8"], "2 lines of context before"),
    ],
    ids=["short-trailing-context", "short-leading-context"],
)
def test_context_must_be_three_lines(body: list[str], message: str) -> None:
    hunks = parse_hunks(body)
    with pytest.raises(DiffError, match=message):
        check_context(hunks, 12)


def test_close_changes_make_one_hunk() -> None:
    before = _numbered(14)
    after = before.replace("line 3\n", "three\n").replace("line 10\n", "ten\n")
    split = parse_hunks([
        "@@ -1,6 +1,6 @@", " line 1", " line 2", "-line 3", "+three", " line 4", " line 5",
        " line 6",
        "@@ -7,7 +7,7 @@", " line 7", " line 8", " line 9", "-line 10", "+ten", " line 11",
        " line 12", " line 13",
    ])
    assert apply_hunks(before, split) == after
    with pytest.raises(DiffError, match="6 lines apart: they make one hunk"):
        check_context(split, 14)


# -- the verdict -----------------------------------------------------------------------------


def test_a_swap_shown_the_other_way_is_equivalent() -> None:
    step, expected = _edit("x\ny\n", "y\nx\n")
    actual = _bracket(expected) + "\n@@ -1,2 +1,2 @@\n+y\n x\n-y"
    assert actual != expected
    assert check(step, expected, actual).equivalent


def test_without_final_newline_the_marker_must_follow() -> None:
    step, expected = _edit("x\ny\nz", "y\nx\nz")
    assert expected.endswith(MARK)
    actual = _bracket(expected) + "\n@@ -1,3 +1,3 @@\n+y\n x\n-y\n z\n" + MARK
    assert actual != expected
    assert check(step, expected, actual).equivalent
    verdict = check(step, expected, actual.removesuffix("\n" + MARK))
    assert not verdict.equivalent
    assert "old line 3 is 'z'" in verdict.reason


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda t: t.replace("[#e001", "[#e002"), "the bracket differs"),
        (lambda t: t.replace(" x", " X"), "old line 1 is"),
        (lambda t: t.replace("@@ -1,2 +1,2 @@", "@@ -1,2 +1,3 @@") + "\n+z", "does not give"),
        (lambda t: t.replace("@@ -1,2 +1,2 @@\n+y\n x\n-y", "@@ -1,2 +1,2 @@\n-x\n-y\n+y\n+x"),
         "changes 4 lines where 2 do"),
        (lambda t: t + "\n", "found ''"),
    ],
    ids=["bracket", "context-text", "other-content", "more-changed-lines", "trailing-newline"],
)
def test_what_is_not_equivalent(change: Any, reason: str) -> None:
    step, expected = _edit("x\ny\n", "y\nx\n")
    alternative = _bracket(expected) + "\n@@ -1,2 +1,2 @@\n+y\n x\n-y"
    verdict = check(step, expected, change(alternative))
    assert not verdict.equivalent
    assert reason in verdict.reason


def test_the_note_must_follow_the_diff() -> None:
    step, expected = _edit("x\ny\n", "y\nx\n", note="Formatted with prettier.")
    alternative = _bracket(expected) + "\n@@ -1,2 +1,2 @@\n+y\n x\n-y"
    assert check(step, expected, alternative + "\n\nFormatted with prettier.").equivalent
    verdict = check(step, expected, alternative)
    assert not verdict.equivalent and "note" in verdict.reason


def test_only_diff_steps_with_a_hunk_are_checked() -> None:
    read = {"op": "read", "path": "d.diff", "content": "@@ -1 +1 @@\n-a\n+b\n"}
    text = Session().read("d.diff", read["content"], id="#r001")
    assert not check(read, text, text + " ").equivalent
    created = {"op": "write", "path": "n.txt", "after": "a\n"}
    text = Session().write("n.txt", "a\n", id="#w001")
    verdict = check(created, text, text.replace("1 lines", "one line"))
    assert not verdict.equivalent and "not a diff" in verdict.reason


def test_a_capped_diff_is_not_a_plain_diff() -> None:
    before = _numbered(40)
    after = before.replace("line", "LINE")
    limits = {"max_lines": 10, "head_lines": 4, "tail_lines": 2}
    expected = Session(limits=limits).edit("f.txt", before, after, id="#e001")
    assert "lines elided" in expected
    step = {"op": "edit", "path": "f.txt", "before": before, "after": after}
    verdict = check(step, expected, expected.replace("-line 1\n", "-line 1 \n"))
    assert not verdict.equivalent and "not a plain diff" in verdict.reason


def _patch(files: list[PatchFile]) -> tuple[dict[str, Any], str]:
    step = {"op": "apply_patch", "id": "#p001",
            "files": [{k: v for k, v in vars(f).items() if v is not None} for f in files]}
    return step, Session().apply_patch(files, id="#p001")


def test_a_patch_is_compared_file_by_file() -> None:
    step, expected = _patch([
        PatchFile("a.txt", "x\ny\n", "y\nx\n"),
        PatchFile("b.txt", None, "new\n"),
        PatchFile("c.txt", "keep\n", None),
    ])
    sections = expected.split("\n")
    assert sections[0] == "[#p001]"
    at = sections.index("@@ -1,2 +1,2 @@")
    alternative = "\n".join([*sections[: at + 1], "+y", " x", "-y", *sections[at + 4 :]])
    assert alternative != expected
    assert check(step, expected, alternative).equivalent
    reordered = "\n".join([sections[0], *sections[at + 4 :], *sections[1 : at + 4]])
    assert not check(step, expected, reordered).equivalent
    created_changed = alternative.replace("Created, 1 lines.", "Created.")
    verdict = check(step, expected, created_changed)
    assert not verdict.equivalent and "file 2 (b.txt)" in verdict.reason


def test_a_one_file_patch_answers_as_an_edit() -> None:
    step, expected = _patch([PatchFile("a.txt", "x\ny\n", "y\nx\n")])
    assert check(step, expected, _bracket(expected) + "\n@@ -1,2 +1,2 @@\n+y\n x\n-y").equivalent


# -- against another diff algorithm ------------------------------------------------------------

_texts = st.lists(st.sampled_from(["a", "b", "c", "", "d d"]), min_size=1, max_size=14).map(
    lambda lines: "".join(line + "\n" for line in lines)
)


@settings(max_examples=150, deadline=None)
@given(before=_texts, after=_texts)
def test_difflib_diffs_are_judged_by_their_size(before: str, after: str) -> None:
    """difflib's -U3 diff shows the same change, often with other hunks than the reference's;
    it is equivalent exactly when it changes no more lines."""
    assume(before != after)
    step, expected = _edit(before, after)
    lines = difflib.unified_diff(lines_with_ends(before), lines_with_ends(after), n=3)
    body = "".join(list(lines)[2:]).rstrip("\n")
    actual = _bracket(expected) + "\n" + body
    reference_hunks = parse_hunks(expected.split("\n")[1:])
    assert apply_hunks(before, reference_hunks) == after
    check_context(reference_hunks, len(lines_with_ends(before)))
    if actual == expected:
        assert not check(step, expected, actual).equivalent  # equal is a pass, not a verdict
    else:
        changed = sum(line[:1] in "+-" for line in body.split("\n") if not line.startswith("@@"))
        allowed = sum(h.changed() for h in reference_hunks)
        assert check(step, expected, actual).equivalent == (changed <= allowed)
