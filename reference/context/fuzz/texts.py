"""Hypothesis strategies for the context area: the texts, paths and arguments of its steps.

The sessions themselves are built in `sessions.py`:

    from hypothesis import given
    from ctxconf.fuzzing.strategies import sessions

    @given(sessions())
    def test_my_harness(case): ...   # case = {"limits"?: {...}, "steps": [...]}

A session is generated step by step, keeping what a harness would know: each file's current
content (so an edit's `before` is what the file holds, and a re-read usually shows it unchanged),
the ids given out so far (so recalls name real results), and the listings already made (so they
repeat). Every choice is drawn so that it shrinks towards the plainest session: the first
option of each list, no offset, no given id, no limits.

Sessions are small by default (at most 12 steps, contents of at most 30 lines) so examples are
fast; about one in twenty is larger.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from hypothesis import strategies as st

from ...fuzzing import Draw
from ...fuzzing import choice as _choice
from ...fuzzing import maybe as _maybe

CWD = "/project"  # the working directory relative paths of a conformance session resolve against
# File names a session uses: a plain one first (what a shrunk session keeps), then a nested
# one, a `|` for the compaction table's escape, another `a.md` elsewhere, and non-ASCII.
FILES = ("a.md", "src/app.py", "notes/x|y.md", "/elsewhere/a.md", "ü 1.txt")
FILE_WEIGHTS = (5, 2, 1, 1, 1)
# Listing tools are deduplicated by result; the others never are.
LISTING_TOOLS = ("list", "glob", "grep", "search")
OTHER_TOOLS = ("bash", "web_fetch")
OPS = (
    "read",
    "output",
    "edit",
    "recall",
    "reply",
    "compact",
    "write",
    "multiedit",
    "delete",
    "apply_patch",
)
OP_WEIGHTS = (6, 5, 2, 2, 2, 1, 1, 1, 1, 1)

_SIMPLE_LINES = ("", "a", "b", "x = 1", "}", "    return a", "# note")
# Characters that some libraries take for line ends or count as two: all ordinary here.
_TRICKY = "ab \t\r\u2028\u2029\x0b\x0c\x85é中😀𝄞|#"
_NOTES = ("Skill file written outside skill_manage.", "line one\nline two", "⚠ note")


def identity(path: str, cwd: str = CWD) -> str:
    """The file a path names: absolute, `.` and `..` folded lexically."""
    return posixpath.normpath(posixpath.join(cwd, path))


def spellings(name: str, cwd: str = CWD) -> tuple[str, ...]:
    """Ways of writing the path `name` that all name the same file."""
    if posixpath.isabs(name):
        folder, base = posixpath.split(name)
        return (name, f"{folder}/./{base}", f"{folder}/b/../{base}")
    up = f"../{posixpath.basename(cwd)}/{name}"
    return (name, f"./{name}", f"b/../{name}", f"{cwd}/{name}", up)


@lru_cache(maxsize=1)
def default_cap() -> dict[str, int]:
    """The bundled `loop.json` cap, which applies to a session without limits."""
    from ..config import ContextConfig

    cap = ContextConfig.load().cap
    return {
        name: getattr(cap, name)
        for name in (
            "max_lines",
            "max_chars",
            "head_lines",
            "head_chars",
            "tail_lines",
            "tail_chars",
        )
    }


# -- texts -----------------------------------------------------------------------------------


@st.composite
def lines(draw: Draw) -> str:
    """One line (no `\\n`): mostly plain, sometimes tricky characters, now and then very long."""
    kind = draw(_KIND)
    if kind <= 5:
        return str(draw(_SIMPLE))
    if kind <= 8:
        return str(draw(_TRICKY_TEXT))
    return str(draw(_LONG_UNIT) * draw(_LONG_SIZE))


# Built once: a strategy built anew for every draw is validated anew, which is most of the cost.
_KIND = st.integers(0, 9)
_SIMPLE = st.sampled_from(_SIMPLE_LINES)
# Pieces, not characters: a text over a union of character strategies would merge them into
# one range of code points, where the tricky ones are too rare to matter.
_TRICKY_TEXT = st.lists(
    st.sampled_from(_TRICKY)
    | st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=3),
    max_size=6,
).map("".join)
_LONG_UNIT = st.sampled_from(("x", "é", "😀", "ab "))
_LONG_SIZE = st.integers(40, 400)
_LINE = lines()
GIVEN_NUMBER = st.integers(0x1000, 0xFFFFF)
NOTE = st.sampled_from(_NOTES)
RECALL_LINE = st.integers(1, 40)


def _join(parts: Sequence[str], final_newline: bool) -> str:
    if not parts:
        return ""
    return "\n".join(parts) + ("\n" if final_newline else "")


@st.composite
def contents(draw: Draw, max_lines: int = 30) -> str:
    """A file's content: possibly empty, `\\r\\n` or `\\n` line ends, possibly no final newline."""
    if _maybe(draw, 10):
        return ""
    parts = [str(line) for line in draw(st.lists(_LINE, min_size=1, max_size=max_lines))]
    if _maybe(draw, 15):
        parts = [line + "\r" for line in parts]
    return _join(parts, not _maybe(draw, 20))


def _split(text: str) -> tuple[list[str], bool]:
    parts = text.split("\n")
    final_newline = parts[-1] == "" and len(parts) > 1
    if parts[-1] == "":
        parts.pop()
    return parts, final_newline


@st.composite
def changed(draw: Draw, before: str, max_lines: int = 30) -> str:
    """What an edit makes of `before`: a few changes spread over the file (so often several
    hunks), sometimes a final newline gained or lost, now and then no change or a rewrite."""
    if _maybe(draw, 8):
        return before
    if _maybe(draw, 8):
        return str(draw(contents(max_lines)))
    parts, final_newline = _split(before)
    crlf = bool(parts) and all(line.endswith("\r") for line in parts)
    end = "\r" if crlf else ""
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(("replace", "insert", "delete")))
        if not parts:
            kind = "insert"
        if kind == "insert":
            at = draw(st.integers(0, len(parts)))
            new = [str(line) + end for line in draw(st.lists(_LINE, min_size=1, max_size=3))]
            parts[at:at] = new
        else:
            at = draw(st.integers(0, len(parts) - 1))
            span = draw(st.integers(1, 3))
            if kind == "replace":
                parts[at : at + span] = [str(draw(_LINE)) + end]
            else:
                del parts[at : at + span]
    if _maybe(draw, 15):
        final_newline = not final_newline
    return _join(parts, final_newline)


@st.composite
def edit_pairs(draw: Draw, max_lines: int = 30) -> tuple[str, str]:
    """(before, after) of one edit."""
    before = str(draw(contents(max_lines)))
    return before, str(draw(changed(before, max_lines)))


# -- the output cap ----------------------------------------------------------------------------


@st.composite
def limits(draw: Draw) -> dict[str, int]:
    """A case's `limits`: small caps, each keeping no more head and tail than its maximum."""
    max_lines = draw(st.integers(2, 12))
    head_lines = draw(st.integers(1, max_lines - 1))
    tail_lines = draw(st.integers(1, max_lines - head_lines))
    max_chars = draw(st.integers(2, 120))
    head_chars = draw(st.integers(1, max_chars - 1))
    tail_chars = draw(st.integers(1, max_chars - head_chars))
    return {
        "max_lines": max_lines,
        "max_chars": max_chars,
        "head_lines": head_lines,
        "head_chars": head_chars,
        "tail_lines": tail_lines,
        "tail_chars": tail_chars,
    }


@st.composite
def output_texts(draw: Draw, cap: Mapping[str, int] | None = None) -> str:
    """A tool's output, often near or over `cap` (the bundled cap when None): by lines, by
    characters, or with a first line longer than the head may hold."""
    cap = default_cap() if cap is None else cap
    mode = _choice(draw, ("small", "lines", "chars", "cut", "empty"), (4, 2, 2, 1, 1))
    final_newline = not _maybe(draw, 30)
    if mode == "empty":
        return ""
    if mode == "small":
        return _join([str(line) for line in draw(st.lists(_LINE, max_size=8))], final_newline)
    if mode == "lines":
        count = max(1, cap["max_lines"] + draw(st.integers(-2, 3)))
        if count <= 40:
            parts = [str(line) for line in draw(st.lists(_LINE, min_size=count, max_size=count))]
        else:  # hundreds of drawn lines would make the example slow and no better
            parts = [f"line {number}" for number in range(1, count + 1)]
        return _join(parts, final_newline)
    unit = str(draw(st.sampled_from(("x", "é", "😀", "\t", "\r", " "))))
    if mode == "chars":
        size = max(1, cap["max_chars"] + draw(st.integers(-2, 2)))
        width = draw(st.integers(0, 30))
        row = unit * width + "\n"
        return (row * (size // len(row) + 1))[:size]
    first = unit * (cap["head_chars"] + draw(st.integers(1, 5)))
    rest = [str(line) for line in draw(st.lists(_LINE, max_size=5))]
    return _join([first, *rest], final_newline)


# -- listings ----------------------------------------------------------------------------------


def listing_args() -> st.SearchStrategy[dict[str, Any]]:
    """A listing's arguments, sometimes nested (keys are compared sorted at every depth)."""
    options = st.fixed_dictionaries(
        {},
        optional={
            "case": st.booleans(),
            "depth": st.integers(0, 3),
            "globs": st.lists(st.sampled_from(("*.md", "*.py")), max_size=2),
        },
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "path": st.sampled_from(("src", ".", "ü")),
            "pattern": st.sampled_from(("*.py", "TODO", "a|b")),
            "options": options,
        },
    )


@st.composite
def reordered(draw: Draw, value: Any) -> Any:
    """`value` with the keys of every object in another order (the same JSON value)."""
    if isinstance(value, dict):
        keys = draw(st.permutations(list(value)))
        return {key: draw(reordered(value[key])) for key in keys}
    if isinstance(value, list):
        return [draw(reordered(item)) for item in value]
    return value
