"""The bundled suite as the mutant and decision tests run it: every case with its area, and the
cases a (broken) copy of the reference fails."""

from __future__ import annotations

import json
from typing import Any

from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.userfiles.limits import parse_exact_float

SPEC = bundled_spec_dir()
LOOP: dict[str, Any] = json.loads((SPEC / "loop.json").read_text(encoding="utf-8"))
# Every case of every area, each with its area: (area, case).
CASES: list[tuple[str, dict[str, Any]]] = [
    (doc["area"], case)
    for doc in (
        # Numbers as ctxconf reads them: by the exact decimal their text writes.
        json.loads(path.read_text(encoding="utf-8"), parse_float=parse_exact_float)
        for path in sorted((SPEC / "conformance").glob("*.json"))
    )
    for case in doc["cases"]
]


def failing_cases(module: Any, cases: list[tuple[str, dict[str, Any]]] = CASES) -> list[str]:
    """The names of the cases whose outputs from `module` differ from the expected ones; a case
    that raises fails."""
    failing = []
    for area, case in cases:
        try:
            outputs = module.run_area_case(area, case, LOOP)
        except Exception:
            failing.append(case["name"])
            continue
        if outputs != case["expect"]:
            failing.append(case["name"])
    return failing
