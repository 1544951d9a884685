"""The API shapes the mock speaks, one module each (`openai_chat`, `openai_responses`,
`anthropic_messages`, `gemini`): reading a request for the mock and the checks, reading it for
the cache audit, writing the answer and its usage, and naming the providers whose cache rules
apply. `registry.SHAPES` registers them; everything else reaches a shape through it by name."""

from __future__ import annotations

from .cache_reading import read_request
from .registry import (
    SHAPES,
    parse_request,
    provider_for,
    registered,
    route_of,
    served_by,
    shape_named,
)
from .shape import ApiShape, Asked

__all__ = [
    "SHAPES",
    "ApiShape",
    "Asked",
    "parse_request",
    "provider_for",
    "read_request",
    "registered",
    "route_of",
    "served_by",
    "shape_named",
]
