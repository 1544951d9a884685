"""A python: implementation that reads two decisions the other way and is otherwise right.

It wraps the reference: an edit that changes nothing answers with an empty diff (the bracket
alone) instead of `No change.`, and a `|` in a compaction table's path is written as it is.
"""

from __future__ import annotations

from typing import Any

from ctxconf.runner import reference_impl

hello = reference_impl.hello


def _other_readings(text: str) -> str:
    return text.replace(" No change.", "").replace("\\|", "|")


def run(request: dict[str, Any]) -> dict[str, Any]:
    answer = reference_impl.run(request)
    if "outputs" in answer:
        answer["outputs"] = [_other_readings(text) for text in answer["outputs"]]
    return answer
