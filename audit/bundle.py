"""A bundle to attach to an issue: the audit's figures, its causes and every loss's place, with
no text that came from a prompt. Maintainers ask for "a small redacted sample"; this is one
that holds what tells a cause (which request, which unit and byte, which rule, what it cost)
and nothing a person typed or a tool returned.

What is dropped: every cause's `detail` (it may quote the bytes around a change), projects'
folders (a file's place is kept by its name below the folder it was found in), and every
problem's message (it may quote a line). Paths keep their last three parts only."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from .results import FORMAT_VERSION

BUNDLE_FORMAT = "ctxconf-audit-bundle"
# Step fields kept as they are: figures, ids, times and places within a file.
_STEP_FIELDS = (
    "index",
    "time",
    "line",
    "pointer",
    "request_id",
    "model",
    "sidechain",
    "uncached",
    "read",
    "written_5m",
    "written_1h",
    "output",
    "gap_s",
    "held_against",
    "readable",
    "lost",
    "lost_usd",
    "provider_verdict",
)


def short_path(path: str) -> str:
    """The last three parts of a path: enough to tell the file, not whose home it was in."""
    parts = PurePath(path).parts
    return "/".join(parts[-3:])


def _step(step: Mapping[str, Any]) -> dict[str, Any]:
    kept = {name: step[name] for name in _STEP_FIELDS}
    kept["file"] = short_path(step["file"])
    kept["boundary"] = step["boundary"].split(" ", 1)[0] if step["boundary"] else None
    cause = step["cause"]
    kept["cause"] = (
        None
        if cause is None
        else {name: cause[name] for name in ("kind", "basis", "blame", "rule", "unit", "byte")}
    )
    return kept


def make_bundle(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "format": BUNDLE_FORMAT,
        "format_version": FORMAT_VERSION,
        "ctxconf_version": doc["ctxconf_version"],
        "figures": doc["figures"],
        "causes": doc["causes"],
        "problems": len(doc["problems"]),
        "sessions": [
            {
                "source": session["source"],
                "session": session["session"],
                "harness": session["harness"],
                "started": session["started"],
                "figures": session["figures"],
                "timeline": [_step(step) for step in session["timeline"]],
            }
            for session in doc["sessions"]
        ],
    }
