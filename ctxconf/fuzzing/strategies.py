"""Hypothesis strategies for the context area: valid sessions that reach every rule.

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
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")
Draw = st.DrawFn
Case = dict[str, Any]

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
    from ctxconf.reference import ContextConfig

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


_PERCENT = st.integers(0, 99)


def _maybe(draw: Draw, percent: int) -> bool:
    """True `percent` times in a hundred; shrinks to False."""
    return bool(draw(_PERCENT) >= 100 - percent)


def _optional(draw: Draw, strategy: st.SearchStrategy[T], percent: int) -> T | None:
    """A value `percent` times in a hundred, else None. The value is drawn either way, before
    the coin, so that shrinking can drop it by flipping the coin alone."""
    value = draw(strategy)
    return value if _maybe(draw, percent) else None


def _choice(draw: Draw, options: Sequence[T], weights: Sequence[int]) -> T:
    """One of `options`, by weight; shrinks to the first."""
    ticket = draw(st.integers(0, sum(weights) - 1))
    for option, weight in zip(options, weights, strict=True):
        if ticket < weight:
            return option
        ticket -= weight
    raise AssertionError("unreachable")


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
_GIVEN_NUMBER = st.integers(0x1000, 0xFFFFF)
_NOTE = st.sampled_from(_NOTES)
_RECALL_LINE = st.integers(1, 40)


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


# -- sessions ----------------------------------------------------------------------------------


@dataclass
class _Call:
    tool: str
    args: dict[str, Any]
    texts: list[str]  # every text this call has answered, latest last


@dataclass
class _Builder:
    """What a harness knows while a session is generated, and how each step is drawn."""

    draw: Draw
    cap: Mapping[str, int]
    max_lines: int
    steps: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, str | None] = field(default_factory=dict)  # identity -> content, None: gone
    seen: dict[str, list[str]] = field(default_factory=dict)  # identity -> contents shown
    ids: list[str] = field(default_factory=list)
    given: set[str] = field(default_factory=set)
    calls: list[_Call] = field(default_factory=list)
    ops: tuple[tuple[str, ...], tuple[int, ...]] = (OPS, OP_WEIGHTS)  # the ops drawn, by weight

    def step(self) -> None:
        op = _choice(self.draw, *self.ops)
        if op in ("compact", "reply"):
            self.steps.append({"op": op})
            return
        step: dict[str, Any] = {"op": op}
        result_id = self._result_id()
        if result_id is not None:
            step["id"] = result_id
        fill = {
            "read": self._read,
            "edit": self._edit,
            "multiedit": self._edit,
            "write": self._write,
            "delete": self._delete,
            "apply_patch": self._apply_patch,
            "output": self._output,
            "recall": self._recall,
        }[op]
        fill(step)
        self.steps.append(step)

    # -- ids

    def _result_id(self) -> str | None:
        """The step's given id, or None; either way the id the result gets is recorded."""
        number = len(self.ids) + 1
        given = None
        # Above any number a session of this size reaches, so never one the session gives.
        number_given = _optional(self.draw, _GIVEN_NUMBER, 10)
        if number_given is not None and f"#{number_given:04x}" not in self.given:
            given = f"#{number_given:04x}"
            self.given.add(given)
        self.ids.append(given if given is not None else f"#{number:04x}")
        return given

    # -- files

    def _path(self) -> tuple[str, str]:
        name = _choice(self.draw, FILES, FILE_WEIGHTS)
        path = str(self.draw(st.sampled_from(spellings(name))))
        return path, identity(path)

    def _content(self) -> str:
        return str(self.draw(contents(self.max_lines)))

    def _set(self, key: str, content: str | None) -> None:
        self.files[key] = content
        if content is not None:
            self.seen.setdefault(key, []).append(content)

    def _read(self, step: dict[str, Any]) -> None:
        path, key = self._path()
        current, seen = self.files.get(key), self.seen.get(key)
        if current is not None and not _maybe(self.draw, 25):
            content = current
        elif seen and _maybe(self.draw, 40):
            content = str(self.draw(st.sampled_from(seen)))  # changed, and changed back
        else:
            content = self._content()
        self._set(key, content)
        step.update(path=path, content=content)
        total = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        offset = _optional(self.draw, st.integers(1, total + 2), 30)
        if offset is not None:
            step["offset"] = offset
        limit = _optional(self.draw, st.integers(1, total + 1), 30)
        if limit is not None:
            step["limit"] = 5000 if _maybe(self.draw, 10) else limit  # clamped to the window

    def _before(self, key: str) -> str:
        current = self.files.get(key)
        return current if current is not None else self._content()

    def _note(self, step: dict[str, Any]) -> None:
        note = _optional(self.draw, _NOTE, 10)
        if note is not None:
            step["note"] = note

    def _edit(self, step: dict[str, Any]) -> None:
        path, key = self._path()
        before = self._before(key)
        after = str(self.draw(changed(before, self.max_lines)))
        self._set(key, after)
        step.update(path=path, before=before, after=after)
        self._note(step)

    def _write(self, step: dict[str, Any]) -> None:
        path, key = self._path()
        current = self.files.get(key)
        step["path"] = path
        if current is None:
            after = self._content()
        else:
            after = str(self.draw(changed(current, self.max_lines)))
            step["before"] = current
        step["after"] = after
        self._set(key, after)
        self._note(step)

    def _delete(self, step: dict[str, Any]) -> None:
        path, key = self._path()
        step["path"] = path
        self._set(key, None)
        self._note(step)

    def _apply_patch(self, step: dict[str, Any]) -> None:
        files: list[dict[str, str]] = []
        used: set[str] = set()
        for _ in range(self.draw(st.integers(1, 3))):
            path, key = self._path()
            if key in used:
                continue
            used.add(key)
            current = self.files.get(key)
            if current is None:
                after = self._content()
                files.append({"path": path, "after": after})
                self._set(key, after)
            elif _maybe(self.draw, 25):
                files.append({"path": path, "before": current})
                self._set(key, None)
            else:
                after = str(self.draw(changed(current, self.max_lines)))
                files.append({"path": path, "before": current, "after": after})
                self._set(key, after)
        step["files"] = files
        self._note(step)

    # -- other tools

    def _output(self, step: dict[str, Any]) -> None:
        if self.calls and _maybe(self.draw, 45):
            call = self.draw(st.sampled_from(self.calls))
            args = self.draw(reordered(call.args))
            kind = _choice(self.draw, ("same", "changed", "back"), (6, 2, 2))
            if kind == "same":
                text = call.texts[-1]
            elif kind == "back":
                text = str(self.draw(st.sampled_from(call.texts)))
            else:
                text = str(self.draw(output_texts(self.cap)))
            call.texts.append(text)
            step.update(tool=call.tool, args=args, text=text)
            return
        tool = _choice(self.draw, LISTING_TOOLS + OTHER_TOOLS, (3, 2, 2, 2, 2, 1))
        args = self.draw(listing_args())
        text = str(self.draw(output_texts(self.cap)))
        self.calls.append(_Call(tool, args, [text]))
        step.update(tool=tool, args=args, text=text)

    def _recall(self, step: dict[str, Any]) -> None:
        earlier = self.ids[:-1]  # the recall's own id is the last one
        if earlier and not _maybe(self.draw, 25):
            target = str(self.draw(st.sampled_from(earlier)))
        else:
            target = "#" + format(self.draw(st.integers(0, 0xFFFF)), "04x")
        form = _choice(self.draw, ("#id", "id", "#ID", "ID"), (5, 2, 2, 1))
        bare = target.removeprefix("#")
        target = {"#id": target, "id": bare, "#ID": "#" + bare.upper(), "ID": bare.upper()}[form]
        step["target"] = target
        for name in ("offset", "limit"):
            value = _optional(self.draw, _RECALL_LINE, 25)
            if value is not None:
                step[name] = value


@st.composite
def _step_then_more(draw: Draw, builder: _Builder, max_steps: int) -> bool:
    """One step, then whether another follows. Each step with its coin is one span of choices
    (not a count drawn up front), so shrinking can delete any step whole, as in a list."""
    builder.draw = draw
    builder.step()
    return len(builder.steps) < max_steps and _maybe(draw, 85)


def only_ops(
    every: Sequence[str], weights: Sequence[int], ops: Collection[str] | None
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The ops among `every` that `ops` names (all of them for None), with their weights.

    Raises ValueError naming an op that is not among `every`, or when none is left.
    """
    if ops is None:
        return tuple(every), tuple(weights)
    unknown = sorted(set(ops) - set(every))
    if unknown:
        raise ValueError(f"no op {', '.join(unknown)}; the ops are {', '.join(every)}")
    kept = [(op, weight) for op, weight in zip(every, weights, strict=True) if op in ops]
    if not kept:
        raise ValueError("no op left to generate")
    return tuple(op for op, _ in kept), tuple(weight for _, weight in kept)


@st.composite
def sessions(
    draw: Draw, max_steps: int = 12, max_lines: int = 30, ops: Collection[str] | None = None
) -> Case:
    """A session of the context area, as a case without its expected texts:
    `{"limits"?: {...}, "steps": [...]}`; about one in twenty is larger than the bounds. `ops`
    leaves out the steps of every other op (an implementation may not have them yet)."""
    chosen = only_ops(OPS, OP_WEIGHTS, ops)
    if _maybe(draw, 5):
        max_steps, max_lines = max_steps * 3, max_lines * 5
    case: Case = {}
    case_limits = _optional(draw, limits(), 50)
    if case_limits is not None:
        case["limits"] = case_limits
    builder = _Builder(draw, case_limits or default_cap(), max_lines, ops=chosen)
    while draw(_step_then_more(builder, max_steps)):
        pass
    case["steps"] = builder.steps
    return case


# -- the prefix area ---------------------------------------------------------------------------
#
# A prefix session starts with its `start` step, then the person's messages and the changes
# between them. The builder keeps what the harness knows (the tools the last request offered,
# every tool the session has, whether a request went out) so that every call names an offered
# tool, every withdrawal a tool of the session, and every response answers a request.

PREFIX_MODELS = ("qwen3-coder-30b", "claude-sonnet", "gpt-5")
PREFIX_DATES = ("2026-11-04", "2026-11-05", "2026-11-06")
PREFIX_MODES = ("code", "plan", "review")
PREFIX_PERSONALITIES = ("terse", "friendly", "pirate")
PREFIX_FILE_PATHS = ("AGENTS.md", ".agent/memory.md", "ü notes.md")
PREFIX_CONTENTS = (
    "",
    "Keep commits small.\n",
    "Run `make test`.\nCI runs on Python 3.10.\n",
    "no final newline",
    "é 😀\r\nline two\u2028",
)
PREFIX_TEXTS = ("Go on.", "Where are we?", "Fix the flaky test.", "é 😀\nsecond line\n")
PREFIX_PLANS = ("1. Add the cache.\n2. Use it in the reader.", "1. Only the tests.\n")
PREFIX_RESULTS = ("", "ok", "3 files\nchanged")
# Harness tools: plan_submit works only in plan mode (prefix.md, pfx.tools.requires).
PREFIX_TOOLS = (
    {"name": "read"},
    {"name": "edit"},
    {"name": "bash"},
    {"name": "plan_submit", "requires": "plan"},
)
# MCP servers of a configuration; ready_ms around context.note.mcp_wait_ms.
_MCP_SERVERS = (
    ("github", ("gh_issue", "gh_pr"), "Use gh_issue for issues."),
    ("docs", ("docs_search",), "Search the docs first.\n"),
    ("quiet", ("quiet_ping",), ""),
)
PREFIX_OPS = (
    "user",
    "date",
    "mode",
    "personality",
    "file",
    "plan",
    "withdraw",
    "switch",
    "call",
    "wrap_up",
    "compact",
    "response",
    "usage",
    "history",
)
PREFIX_OP_WEIGHTS = (8, 2, 3, 2, 2, 2, 1, 1, 4, 1, 2, 4, 1, 1)
_BAD_COUNTS: tuple[object, ...] = (None, 0, -1, "12", 1.5, True, 7, 123456)


@lru_cache(maxsize=1)
def mcp_wait_ms() -> int:
    from ctxconf.reference import PrefixConfig

    return int(PrefixConfig.load().mcp_wait_ms)


@lru_cache(maxsize=1)
def provider_bodies() -> dict[tuple[str, bool], tuple[Any, ...]]:
    """The real response bodies of the bundled prefix cases, by (provider, stream)."""
    import json

    from ctxconf.paths import bundled_spec_dir

    path = bundled_spec_dir() / "conformance" / "prefix.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    bodies: dict[tuple[str, bool], list[Any]] = {}
    for case in document["cases"]:
        for step in case["steps"]:
            if step["op"] == "response":
                found = bodies.setdefault((step["provider"], step["stream"]), [])
                if step["body"] not in found:
                    found.append(step["body"])
    return {key: tuple(found) for key, found in sorted(bodies.items())}


def _count_paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of every number (and every object member) inside a JSON value."""
    paths: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            paths.append((*at, key))
            paths += _count_paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            paths += _count_paths(item, (*at, index))
    return paths


def _perturbed(value: Any, path: tuple[Any, ...], change: object, remove: bool) -> Any:
    """A copy of `value` with the member at `path` removed or set to `change`."""
    if not path:
        return change
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        if remove and not rest:
            return {k: v for k, v in value.items() if k != head}
        return {
            k: (_perturbed(v, rest, change, remove) if k == head else v) for k, v in value.items()
        }
    return [(_perturbed(v, rest, change, remove) if i == head else v) for i, v in enumerate(value)]


@st.composite
def provider_responses(draw: Draw) -> dict[str, Any]:
    """A `response` step: a real body of the bundled cases, its counts now and then removed,
    set to null, negative, not whole, or to another number (to exercise "not reported")."""
    bodies = provider_bodies()
    provider, stream = draw(st.sampled_from(sorted(bodies)))
    body = draw(st.sampled_from(bodies[provider, stream]))
    for _ in range(draw(st.integers(0, 2))):
        paths = [p for p in _count_paths(body) if not isinstance(p[-1], int)]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        remove = _maybe(draw, 40)
        body = _perturbed(body, path, draw(st.sampled_from(_BAD_COUNTS)), remove)
    return {"op": "response", "provider": provider, "stream": stream, "body": body}


@st.composite
def prefix_starts(draw: Draw) -> dict[str, Any]:
    """A `start` step: model, date, mode and tools, maybe a personality, files, MCP servers."""
    step: dict[str, Any] = {
        "op": "start",
        "model": draw(st.sampled_from(PREFIX_MODELS)),
        "date": draw(st.sampled_from(PREFIX_DATES)),
        "mode": draw(st.sampled_from(PREFIX_MODES)),
        "tools": [dict(tool) for tool in PREFIX_TOOLS[: draw(st.integers(1, len(PREFIX_TOOLS)))]],
    }
    if not _maybe(draw, 80):
        step["tools"] = [dict(PREFIX_TOOLS[-1])] if _maybe(draw, 50) else []
    personality = _optional(draw, st.sampled_from(PREFIX_PERSONALITIES), 30)
    if personality is not None:
        step["personality"] = personality
    if _maybe(draw, 40):
        paths = draw(
            st.lists(st.sampled_from(PREFIX_FILE_PATHS), min_size=1, max_size=2, unique=True)
        )
        step["files"] = [
            {"path": p, "content": draw(st.sampled_from(PREFIX_CONTENTS))} for p in paths
        ]
    if _maybe(draw, 40):
        wait = mcp_wait_ms()
        servers = []
        for name, tools, instructions in _MCP_SERVERS[: draw(st.integers(1, len(_MCP_SERVERS)))]:
            ready = draw(st.sampled_from((0, wait - 1, wait, wait + 1, wait * 2)))
            server: dict[str, Any] = {"server": name, "ready_ms": ready, "tools": list(tools)}
            if instructions:
                server["instructions"] = instructions
            servers.append(server)
        step["mcp"] = servers
    return step


@dataclass
class _PrefixBuilder:
    """What a harness knows while a prefix session is generated: enough to keep it valid."""

    draw: Draw
    start: dict[str, Any]
    steps: list[dict[str, Any]] = field(default_factory=list)
    requested: bool = False  # a request went out
    offered: tuple[str, ...] = ()  # the tools of the latest request
    listed: tuple[str, ...] = ()  # the tool list as last made
    withdrawn: set[str] = field(default_factory=set)
    model: str = ""
    files: list[str] = field(default_factory=list)
    ops: tuple[tuple[str, ...], tuple[int, ...]] = (PREFIX_OPS, PREFIX_OP_WEIGHTS)

    def __post_init__(self) -> None:
        self.steps.append(self.start)
        self.model = self.start["model"]
        self.files = [f["path"] for f in self.start.get("files", [])]

    def _all_tools(self, *, connected_late: bool) -> list[str]:
        names = [tool["name"] for tool in self.start["tools"]]
        for server in self.start.get("mcp", []):
            if connected_late or server["ready_ms"] <= mcp_wait_ms():
                names += server["tools"]
        return names

    def _make(self, *, first: bool) -> None:
        self.listed = tuple(
            t for t in self._all_tools(connected_late=not first) if t not in self.withdrawn
        )

    def _request(self) -> None:
        if not self.requested:
            self._make(first=True)
            self.requested = True
        self.offered = self.listed

    def step(self) -> None:
        draw = self.draw
        op = _choice(draw, *self.ops)
        step: dict[str, Any] = {"op": op}
        if op == "user":
            step["text"] = draw(st.sampled_from(PREFIX_TEXTS))
            self._request()
        elif op in ("wrap_up", "compact"):
            self._request()
            if op == "compact":
                self._make(first=False)
        elif op == "date":
            step["date"] = draw(st.sampled_from(PREFIX_DATES))
        elif op == "mode":
            step["mode"] = draw(st.sampled_from(PREFIX_MODES))
        elif op == "personality":
            step["personality"] = draw(st.sampled_from(PREFIX_PERSONALITIES))
        elif op == "file":
            known = self.files + [p for p in PREFIX_FILE_PATHS if p not in self.files]
            path = str(draw(st.sampled_from(known)))
            if path not in self.files:
                self.files.append(path)
            step.update(path=path, content=draw(st.sampled_from(PREFIX_CONTENTS)))
        elif op == "plan":
            step["plan"] = draw(st.sampled_from(PREFIX_PLANS))
        elif op == "withdraw":
            every = self._all_tools(connected_late=True)
            if not every:
                return
            names = draw(st.lists(st.sampled_from(every), min_size=1, max_size=2, unique=True))
            self.withdrawn.update(names)
            step["tools"] = names
        elif op == "switch":
            model = str(draw(st.sampled_from(PREFIX_MODELS)))
            if model != self.model and self.requested:
                self._make(first=False)
            self.model = model
            step["model"] = model
        elif op == "call":
            # The last request's tools that the list as made now still holds: the reference
            # refuses a call of one a compaction or a switch has since left out.
            callable_now = [t for t in self.offered if t in self.listed]
            if not callable_now:
                return
            withdrawn = [t for t in callable_now if t in self.withdrawn]
            pool = withdrawn if withdrawn and _maybe(self.draw, 40) else callable_now
            step.update(
                tool=draw(st.sampled_from(pool)), result=draw(st.sampled_from(PREFIX_RESULTS))
            )
        elif op == "response":
            if not self.requested:
                return
            step = draw(provider_responses())
        self.steps.append(step)


@st.composite
def _prefix_step_then_more(draw: Draw, builder: _PrefixBuilder, max_steps: int) -> bool:
    builder.draw = draw
    builder.step()
    return len(builder.steps) < max_steps and _maybe(draw, 88)


@st.composite
def prefix_sessions(draw: Draw, max_steps: int = 16, ops: Collection[str] | None = None) -> Case:
    """A session of the prefix area, as a case without its expected texts: `{"steps": [...]}`,
    its first step `start` (whatever `ops` names); about one in twenty is larger than the
    bound."""
    chosen = only_ops(PREFIX_OPS, PREFIX_OP_WEIGHTS, ops)
    if _maybe(draw, 5):
        max_steps *= 3
    builder = _PrefixBuilder(draw, draw(prefix_starts()), ops=chosen)
    while draw(_prefix_step_then_more(builder, max_steps)):
        pass
    return {"steps": builder.steps}


def ops_of(area: str) -> tuple[str, ...]:
    """The ops the sessions of `area` are made of (a prefix session's `start` aside)."""
    if area == "prefix":
        return PREFIX_OPS
    if area == "context":
        return OPS
    raise ValueError(f"no sessions for the area {area!r}")


def sessions_of(area: str, ops: Collection[str] | None = None) -> st.SearchStrategy[Case]:
    """The sessions of `area`, `context` or `prefix`, with only `ops` (None: every op).

    Raises ValueError for an unknown area or op, or no op at all.
    """
    only_ops(ops_of(area), (1,) * len(ops_of(area)), ops)  # refused now rather than when drawn
    if area == "prefix":
        return prefix_sessions(ops=ops)
    return sessions(ops=ops)


__all__ = [
    "CWD",
    "FILES",
    "LISTING_TOOLS",
    "OPS",
    "OTHER_TOOLS",
    "PREFIX_OPS",
    "changed",
    "contents",
    "default_cap",
    "edit_pairs",
    "identity",
    "limits",
    "lines",
    "listing_args",
    "only_ops",
    "ops_of",
    "output_texts",
    "prefix_sessions",
    "prefix_starts",
    "provider_bodies",
    "provider_responses",
    "reordered",
    "sessions",
    "sessions_of",
    "spellings",
]
