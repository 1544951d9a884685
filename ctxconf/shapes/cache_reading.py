"""One recorded request made into the cache audit's CacheRequest: its body read by its shape's
cache reader, the credentials of its headers removed from everything kept, its caching headers
kept."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxconf.cache.credentials import Headers, caching_headers, scrub, scrub_value, secrets_of
from ctxconf.cache.request import DIAGNOSED, PARAMS, CacheRequest

from .registry import shape_named


def read_request(
    shape: str,
    body: Mapping[str, Any],
    headers: Headers = (),
    time: float = 0.0,
    *,
    model: str | None = None,
    number: int | None = None,
) -> CacheRequest:
    """The request a harness sent in API shape `shape`, as the simulators see it. `model` names
    the model where the body does not (Gemini's is in the URL), or replaces it (to simulate
    another model)."""
    reader = shape_named(shape).read_cache
    headers = list(headers.items()) if isinstance(headers, Mapping) else list(headers)
    secrets = secrets_of(headers)
    clean = scrub_value(dict(body), secrets)
    parts = reader(clean)
    named = model if model is not None else clean.get("model")
    chosen = scrub(str(named or ""), secrets)
    params = {name: parts.params.get(name) for name in PARAMS + DIAGNOSED}
    params["model"] = chosen
    return CacheRequest(
        shape=shape,
        time=float(time),
        model=chosen,
        units=tuple(parts.units),
        tools=tuple(parts.tools),
        params=params,
        settings=parts.settings,
        headers=caching_headers(headers),
        number=number,
    )


__all__ = ["read_request"]
