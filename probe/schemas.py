"""The probe's JSON Schemas (`probe/data/schemas/`), and validation that places a problem."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

from .errors import ProbeDataError


@cache
def _validator(name: str) -> Draft202012Validator:
    file = resources.files("ctxconf.probe") / "data" / "schemas" / f"{name}.schema.json"
    text = file.read_text(encoding="utf-8")
    return Draft202012Validator(json.loads(text))


def validate_data(
    data: Any, schema: str, source: str, place: Callable[[str], str] | None = None
) -> None:
    """Raise ProbeDataError naming the first problem by JSON pointer, all problems counted;
    `place` gives where a pointer's value stands in the file (`file:line:column`)."""
    errors = sorted(_validator(schema).iter_errors(data), key=lambda e: list(e.absolute_path))
    if not errors:
        return
    first = errors[0]
    pointer = "".join(f"/{part}" for part in first.absolute_path) or "/"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    where = place(pointer) if place is not None else source
    raise ProbeDataError(f"{where}: at {pointer}: {first.message}{more}")


__all__ = ["validate_data"]
