"""The file a harness writes its usage to, as a profile names it: a path under the work folder,
or under the home with `{home}/`, with glob patterns for a name that holds a session id
(`{home}/.copilot/session-state/*/events.jsonl`)."""

from __future__ import annotations

import glob
from pathlib import Path

MAGIC = frozenset("*?[")


def usage_file(pattern: str, home: Path, work: Path) -> Path | None:
    """The file `pattern` names in this session's folders; of several matches, the one written
    last (the latest session's). None when nothing matches."""
    if pattern.startswith("{home}/"):
        root, rest = home, pattern[len("{home}/") :]
    elif pattern.startswith("{work}/"):
        root, rest = work, pattern[len("{work}/") :]
    else:
        root, rest = work, pattern
    if not MAGIC & set(rest):
        path = root / rest
        return path if path.is_file() else None
    found = [Path(p) for p in glob.glob(glob.escape(str(root)) + "/" + rest, recursive=True)]
    files = [p for p in found if p.is_file()]
    if not files:
        return None
    return max(files, key=lambda p: (p.stat().st_mtime_ns, str(p)))


__all__ = ["usage_file"]
