"""The reference implementation behind protocol v1, as functions of protocol messages.

`ReferenceImplementation(spec_dir)` answers, in every area the reference implements, with the
numbers and texts of that spec folder's `loop.json`; the module-level `hello()` and `run()` use
the bundled spec, so `--impl python:ctxconf.runner.reference_impl` is `--impl reference`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxconf import __version__
from ctxconf.reference import AREAS, OPS_BY_AREA, REGISTRY

from .protocol import PROTOCOL_VERSION

NAME = "ctxconf-reference"


def _load_loop(spec_dir: Path | None) -> dict[str, Any]:
    """The spec's loop.json, refused (SpecFileError, with its place) unless every area's
    reference can use it."""
    from ctxconf.specdata.paths import bundled_spec_dir
    from ctxconf.specdata.reader import read_loop

    return read_loop(bundled_spec_dir() if spec_dir is None else spec_dir)


class ReferenceImplementation:
    def __init__(self, spec_dir: Path | None = None, *, loop: Mapping[str, Any] | None = None):
        self._loop = _load_loop(spec_dir) if loop is None else loop
        # Each area's config, read from loop.json once rather than for every case.
        self._configs = {name: area.config(self._loop) for name, area in REGISTRY.items()}

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
        ops = OPS_BY_AREA[area]
        unknown = sorted({str(s.get("op")) for s in case["steps"] if s.get("op") not in ops})
        if unknown:
            return {"seq": seq, "error": f"unknown step op(s) in {area}: {', '.join(unknown)}"}
        try:
            outputs = REGISTRY[area].run(case, self._configs[area])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
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
