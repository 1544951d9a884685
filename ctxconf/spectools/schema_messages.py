"""The words of a schema problem: what a value lacks or which keys an object takes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jsonschema.exceptions import ValidationError

# Past this many allowed keys, naming them all makes the line harder to read, not easier.
_MAX_KEYS_LISTED = 10


def allowed_keys(keys: Sequence[str]) -> str:
    if not keys:
        return " (this object takes no other keys)"
    if len(keys) > _MAX_KEYS_LISTED:
        return ""
    return f" (allowed: {', '.join(keys)})"


def schema_message(error: ValidationError, schema: Mapping[str, Any]) -> str:
    message = error.message
    alternatives = error.context or []
    if error.validator in ("anyOf", "oneOf") and alternatives:
        if all(sub.validator == "required" for sub in alternatives):
            missing = sorted(
                {
                    key
                    for sub in alternatives
                    if isinstance(sub.validator_value, list) and isinstance(sub.instance, dict)
                    for key in sub.validator_value
                    if key not in sub.instance
                }
            )
            message = "needs " + " or ".join(repr(key) for key in missing)
        else:
            message = "fits none of: " + "; ".join(sub.message for sub in alternatives)
    title = schema.get("title")
    # A step shape's title names its op and fields: say which shape the value was held to.
    return f"{message} (a {title})" if isinstance(title, str) else message
