"""The reference implementation behind protocol v1, as functions of protocol messages.

`ReferenceImplementation(spec_dir)` answers with the numbers and texts of that spec folder's
`loop.json`; the module-level `hello()` and `run()` use the bundled spec, so
`--impl python:ctxconf.runner.reference_impl` is the same as `--impl reference`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxconf import __version__
from ctxconf.reference import ContextConfig, run_case
from ctxconf.reference.adapter import OPS

from .protocol import PROTOCOL_VERSION

AREAS = ("context",)
NAME = "ctxconf-reference"


class ReferenceImplementation:
    def __init__(self, spec_dir: Path | None = None) -> None:
        self._config = ContextConfig.load(spec_dir)

    def hello(self) -> dict[str, Any]:
        return {
            "protocol": PROTOCOL_VERSION,
            "implementation": {"name": NAME, "version": __version__, "language": "python"},
            "areas": list(AREAS),
        }

    def run(self, request: Mapping[str, Any]) -> dict[str, Any]:
        seq = request.get("seq")
        area = request.get("area")
        if area not in AREAS:
            return {"seq": seq, "skipped": f"the reference implements only {', '.join(AREAS)}"}
        case = request.get("case")
        if not isinstance(case, Mapping) or not isinstance(case.get("steps"), list):
            return {"seq": seq, "error": 'the request has no "case" with a "steps" array'}
        unknown = sorted({str(s.get("op")) for s in case["steps"] if s.get("op") not in OPS})
        if unknown:
            return {"seq": seq, "error": f"unknown step op(s): {', '.join(unknown)}"}
        try:
            outputs = run_case(case, self._config)
        except (KeyError, TypeError, ValueError) as error:
            return {"seq": seq, "error": f"{type(error).__name__}: {error}"}
        return {"seq": seq, "outputs": outputs}


_default: ReferenceImplementation | None = None


def _bundled() -> ReferenceImplementation:
    global _default
    if _default is None:
        _default = ReferenceImplementation()
    return _default


def hello() -> dict[str, Any]:
    return _bundled().hello()


def run(request: Mapping[str, Any]) -> dict[str, Any]:
    return _bundled().run(request)
