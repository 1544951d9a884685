"""A python: implementation of the context area alone, half done, as a first one often is.

It wraps the reference and leaves three things undone: every edit (edit, multiedit, write,
apply_patch) is answered with a step error, an em dash is written as a hyphen, and compaction
adds no table of the files read. Of the decisions it reads one the other way: an empty output
is its bracket alone (`ctx.output.empty`). A run must name that decision, and no other one,
however many of their cases fail.
"""

from __future__ import annotations

from typing import Any

from ctxconf.runner import reference_impl

_EDITS = ("edit", "multiedit", "write", "apply_patch")


def hello() -> dict[str, Any]:
    return {**reference_impl.hello(), "areas": ["context"]}


def _partial(step: dict[str, Any], text: str) -> object:
    if step.get("op") in _EDITS:
        return {"error": f"{step.get('op')} is not implemented yet"}
    if step.get("op") == "compact":
        return ""
    if step.get("op") == "output" and step.get("text") == "":
        return text.removesuffix(" (no output)")
    return text.replace("\u2014", "-")


def run(request: dict[str, Any]) -> dict[str, Any]:
    answer = reference_impl.run(request)
    if "outputs" in answer:
        steps = request["case"]["steps"]
        answer["outputs"] = [
            _partial(step, text) for step, text in zip(steps, answer["outputs"], strict=True)
        ]
    return answer
