"""What every area shares: `loop.json` as parsed, and the templates of the texts it inserts."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
# The bundled spec sits beside the reference: ctxconf/spec in a wheel, spec/ in a checkout.
BUNDLED_SPEC = Path(__file__).resolve().parents[1] / "spec"


def read_loop(spec_dir: Path | None = None) -> dict[str, Any]:
    """`loop.json` of `spec_dir`, or of the spec bundled with ctxconf."""
    with open((spec_dir or BUNDLED_SPEC) / "loop.json", encoding="utf-8") as f:
        loop: dict[str, Any] = json.load(f)
    return loop


class Texts:
    """The templates of every inserted text; `{name}` placeholders are filled by `render`."""

    def __init__(self, templates: Mapping[str, str]) -> None:
        self._templates = dict(templates)

    def render(self, name: str, **values: object) -> str:
        template = self._templates[name]

        def fill(match: re.Match[str]) -> str:
            return str(values[match.group(1)])

        return _PLACEHOLDER.sub(fill, template)

    def placeholders(self, name: str) -> set[str]:
        return set(_PLACEHOLDER.findall(self._templates[name]))

    def names(self) -> list[str]:
        return list(self._templates)
