"""Maps a conformance case (its limits and steps) onto a `Session` and returns the step texts."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .config import ContextConfig
from .session import PatchFile, Session

Step = Mapping[str, Any]


def _patch_files(step: Step) -> list[PatchFile]:
    return [PatchFile(f["path"], f.get("before"), f.get("after")) for f in step["files"]]


_OPS: dict[str, Callable[[Session, Step], str]] = {
    "read": lambda s, st: s.read(
        st["path"], st["content"], offset=st.get("offset"), limit=st.get("limit"), id=st.get("id")
    ),
    "edit": lambda s, st: s.edit(
        st["path"], st["before"], st["after"], note=st.get("note"), id=st.get("id")
    ),
    "multiedit": lambda s, st: s.multiedit(
        st["path"], st["before"], st["after"], note=st.get("note"), id=st.get("id")
    ),
    "write": lambda s, st: s.write(
        st["path"], st["after"], before=st.get("before"), note=st.get("note"), id=st.get("id")
    ),
    "delete": lambda s, st: s.delete(st["path"], note=st.get("note"), id=st.get("id")),
    "apply_patch": lambda s, st: s.apply_patch(
        _patch_files(st), note=st.get("note"), id=st.get("id")
    ),
    "output": lambda s, st: s.output(st["tool"], st["args"], st["text"], id=st.get("id")),
    "recall": lambda s, st: s.recall(
        st["target"], offset=st.get("offset"), limit=st.get("limit"), id=st.get("id")
    ),
    "compact": lambda s, st: s.compact(),
    "reply": lambda s, st: s.reply(),
}

OPS = frozenset(_OPS)


def run_case(case: Mapping[str, Any], config: ContextConfig | None = None) -> list[str]:
    """The text each step of `case` inserts, in a fresh session."""
    session = Session(config, limits=case.get("limits"))
    steps: Sequence[Step] = case["steps"]
    return [_OPS[step["op"]](session, step) for step in steps]
