"""A python: implementation with one rule broken on purpose: a stub never says "Unchanged since".

It wraps the reference and words the stub sentence its own way, so exactly the steps whose
expected text is a stub fail.
"""

from __future__ import annotations

from typing import Any

from ctxconf.runner import reference_impl

hello = reference_impl.hello


def run(request: dict[str, Any]) -> dict[str, Any]:
    answer = reference_impl.run(request)
    if "outputs" in answer:
        answer["outputs"] = [
            text.replace("Unchanged since", "Same content as") for text in answer["outputs"]
        ]
    return answer
