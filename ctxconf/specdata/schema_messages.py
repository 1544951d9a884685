"""The words of a schema problem: what a value lacks or which keys an object takes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported only when a file has a problem (specdata/schemas.py says why)
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator
    from referencing import Registry
    from referencing._core import Resolver

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


def named_keys(
    error: ValidationError, validator: Validator, registry: Registry[Any]
) -> list[str] | None:
    """The keys the schema of an `unevaluatedProperties: false` error names for its object: the
    properties of every shape it takes through `$ref`, `allOf`, `anyOf`, `oneOf` and the `then`
    of each `if` the object meets, valid or not (a shape with a problem of its own still names
    its keys, so they are not reported unknown as well). None when the object picks no shape
    (a step whose op is none of its area's): its keys are then neither known nor unknown, and
    the problem that says why (the op) is the one to report."""
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    keys: dict[str, None] = {}
    base = validator.schema.get("$id", "") if isinstance(validator.schema, Mapping) else ""
    shapes = _Shapes(validator)
    shapes.collect(schema, error.instance, registry.resolver(base), keys, 0)
    return list(keys) if shapes.met or not shapes.offered else None


# A shape that refers to itself stops here rather than recursing forever.
_MAX_REF_DEPTH = 32


class _Shapes:
    """A walk over the shapes a schema gives an object, counting the `if`s it offers and meets."""

    def __init__(self, validator: Validator) -> None:
        self.validator = validator
        self.offered = self.met = 0

    def collect(
        self,
        schema: Any,
        instance: Any,
        resolver: Resolver[Any],
        keys: dict[str, None],
        depth: int,
    ) -> None:
        if not isinstance(schema, Mapping) or depth > _MAX_REF_DEPTH:
            return
        if "$id" in schema:
            from referencing.jsonschema import DRAFT202012

            resolver = resolver.in_subresource(DRAFT202012.create_resource(schema))
        if isinstance(ref := schema.get("$ref"), str):
            resolved = resolver.lookup(ref)
            self.collect(resolved.contents, instance, resolved.resolver, keys, depth + 1)
        for keyword in ("allOf", "anyOf", "oneOf"):
            for sub in schema.get(keyword, ()):
                self.collect(sub, instance, resolver, keys, depth)
        if "if" in schema:
            self.offered += 1
            if self.validator.evolve(schema=schema["if"]).is_valid(instance):
                self.met += 1
                self.collect(schema.get("then"), instance, resolver, keys, depth)
        keys.update(dict.fromkeys(schema.get("properties", {})))
