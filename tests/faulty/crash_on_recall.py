"""Raises on every session that has a recall in it: a crash is a disagreement too."""

from __future__ import annotations

from typing import Any

from ctxconf.runner import reference_impl

hello = reference_impl.hello


def run(request: dict[str, Any]) -> dict[str, Any]:
    if any(step.get("op") == "recall" for step in request["case"]["steps"]):
        raise RuntimeError("recall is not implemented")
    return reference_impl.run(request)
