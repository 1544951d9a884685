"""Hypothesis strategies for the context area: valid sessions that reach every rule.

A session is generated step by step, keeping what a harness would know (see `texts.py` for the
pieces); every choice is drawn so that it shrinks towards the plainest session.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from ...fuzzing import Case, Draw, only_ops
from ...fuzzing import choice as _choice
from ...fuzzing import maybe as _maybe
from ...fuzzing import optional as _optional
from .texts import (
    FILE_WEIGHTS,
    FILES,
    GIVEN_NUMBER,
    LISTING_TOOLS,
    NOTE,
    OP_WEIGHTS,
    OPS,
    OTHER_TOOLS,
    RECALL_LINE,
    changed,
    contents,
    default_cap,
    identity,
    limits,
    listing_args,
    output_texts,
    reordered,
    spellings,
)

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
        number_given = _optional(self.draw, GIVEN_NUMBER, 10)
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
        note = _optional(self.draw, NOTE, 10)
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
            value = _optional(self.draw, RECALL_LINE, 25)
            if value is not None:
                step[name] = value


@st.composite
def _step_then_more(draw: Draw, builder: _Builder, max_steps: int) -> bool:
    """One step, then whether another follows. Each step with its coin is one span of choices
    (not a count drawn up front), so shrinking can delete any step whole, as in a list."""
    builder.draw = draw
    builder.step()
    return len(builder.steps) < max_steps and _maybe(draw, 85)


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
