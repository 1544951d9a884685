"""The fenced examples of a spec text, each held to be a text some case really shows."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

_BLOCK = re.compile(r"```(\w*)\n(.*?)\n```", re.S)


def examples_not_shown(md: str, cases: Iterable[dict[str, Any]]) -> tuple[int, list[object]]:
    """How many fenced examples `md` has, and those no case shows: a text block is one step's
    text; a `json` block is one step's text (a string) or the texts of consecutive steps (a
    list)."""
    runs: list[Sequence[str]] = [case["expect"] for case in cases]
    outputs = {text for run in runs for text in run}
    blocks = _BLOCK.findall(md)
    missing: list[object] = []
    for kind, body in blocks:
        if kind != "json":
            if body not in outputs:
                missing.append(body)
            continue
        data = json.loads(body)
        if isinstance(data, str):
            found = data in outputs
        else:
            found = any(
                list(run[i : i + len(data)]) == data for run in runs for i in range(len(run))
            )
        if not found:
            missing.append(data)
    return len(blocks), missing
