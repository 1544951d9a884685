"""One recorded request made into a CacheRequest: its body read by its shape's reader, the
credentials of its headers removed from everything kept, its caching headers kept."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .credentials import Headers, caching_headers, scrub, scrub_value, secrets_of
from .read_anthropic import read_anthropic
from .read_chat import read_chat
from .read_gemini import read_gemini
from .read_responses import read_responses
from .request import PARAMS, ApiShape, CacheRequest
from .units import Parts

READERS: dict[ApiShape, Callable[[Mapping[str, Any]], Parts]] = {
    "openai-chat": read_chat,
    "openai-responses": read_responses,
    "anthropic": read_anthropic,
    "gemini": read_gemini,
}


def read_request(
    shape: ApiShape,
    body: Mapping[str, Any],
    headers: Headers = (),
    time: float = 0.0,
    *,
    model: str | None = None,
) -> CacheRequest:
    """The request a harness sent, as the simulators see it. `model` names the model where the
    body does not (Gemini's is in the URL), or replaces it (to simulate another model)."""
    headers = list(headers.items()) if isinstance(headers, Mapping) else list(headers)
    secrets = secrets_of(headers)
    clean = scrub_value(dict(body), secrets)
    parts = READERS[shape](clean)
    named = model if model is not None else clean.get("model")
    chosen = scrub(str(named or ""), secrets)
    params = {name: parts.params.get(name) for name in PARAMS}
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
    )


__all__ = ["READERS", "read_request"]
