"""The API shapes a harness speaks, one module each (`openai_chat`, `openai_responses`,
`anthropic_messages`, `gemini`): reading a request for the probe's mock and its checks (`wire`),
reading it for the cache audit, writing the answer and its usage (`answers`), and naming the
providers whose cache rules apply. `registry.SHAPES` registers them; everything else reaches a
shape through it by name. Shared by the ways in: it imports the cache audit and the helpers
alone."""

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
