"""What the proxy takes of what the ways in share: the API shapes' paths (which shape a request
speaks), the cache audit's reading of a body into the units a provider hashes, and the
credential headers with the scrubbing of their values. The one module that names where those
live."""

from __future__ import annotations

from ctxconf.cache.credentials import (
    CREDENTIAL_HEADERS,
    REDACTED,
    caching_headers,
    scrub,
    scrub_value,
    secrets_of,
)
from ctxconf.shapes import SHAPES, read_request, route_of

__all__ = [
    "CREDENTIAL_HEADERS",
    "REDACTED",
    "SHAPES",
    "caching_headers",
    "read_request",
    "route_of",
    "scrub",
    "scrub_value",
    "secrets_of",
]
