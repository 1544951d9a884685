"""Where the reference implements each rule: its `# rule: ANCHOR` comments.

Each function or branch of the reference that implements a rule names the rule's anchor in a
comment just above it; lint holds those comments and the spec's anchors to each other, and
`ctxconf show ANCHOR` prints them beside the rule's text and its cases.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import ctxconf.reference

REFERENCE = Path(ctxconf.reference.__file__).resolve().parent
_COMMENT = re.compile(r"^[ \t]*# rule: (\S+)[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Place:
    path: Path
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def _named(folder: Path) -> Iterator[tuple[str, Place]]:
    for path in sorted(folder.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        for match in _COMMENT.finditer(text):
            yield match.group(1), Place(path, text.count("\n", 0, match.start()) + 1)


def implementations(folder: Path = REFERENCE) -> dict[str, list[Place]]:
    """Every anchor a `# rule:` comment of the reference names -> where, in file order."""
    found: dict[str, list[Place]] = {}
    for anchor, place in _named(folder):
        found.setdefault(anchor, []).append(place)
    return found
