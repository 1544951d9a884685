"""The session id a turn printed, for a harness resumed by id (`{last_session_id}` in its resume
command): a regular expression in the profile says where the id stands in a turn's output."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Stream = Literal["stdout", "stderr"]


@dataclass(frozen=True)
class SessionIdSource:
    """`pattern`'s last match in `stream`; its group when it has one, else the whole match."""

    pattern: str
    stream: Stream = "stdout"

    def find(self, stdout: str, stderr: str) -> str | None:
        text = stdout if self.stream == "stdout" else stderr
        matches = list(re.finditer(self.pattern, text))
        if not matches:
            return None
        last = matches[-1]
        return last.group(1) if last.re.groups else last.group(0)


def last_session_id(source: SessionIdSource, outputs: Sequence[tuple[str, str]]) -> str | None:
    """The id the latest turn that printed one printed (of each turn's stdout and stderr, in
    order): a resumed turn may print none."""
    for stdout, stderr in reversed(outputs):
        found = source.find(stdout, stderr)
        if found:
            return found
    return None


__all__ = ["SessionIdSource", "Stream", "last_session_id"]
