"""The providers' one registry, and what it refuses."""

from __future__ import annotations

import pytest

from ctxconf.cache import PROVIDERS, provider_named, simulate
from ctxconf.cache.request import PARAMS
from ctxconf.errors import DataError
from ctxconf.shapes import SHAPES, read_request

from .bodies import chat


def test_every_provider_is_registered_once_with_forks_it_can_know() -> None:
    assert sorted(PROVIDERS) == ["anthropic", "gemini", "llamacpp", "openai"]
    for name, provider in PROVIDERS.items():
        assert provider.name == name
        assert set(provider.forks) <= set(PARAMS)


def test_every_provider_applies_to_some_registered_shape() -> None:
    applied = {name for shape in SHAPES.values() for name in shape.providers}
    assert applied == set(PROVIDERS)


def test_an_unknown_provider_is_refused() -> None:
    requests = [read_request("openai-chat", chat("S", []))]
    with pytest.raises(DataError, match="unknown provider 'bedrock': one of anthropic"):
        simulate("bedrock", requests)
    with pytest.raises(DataError, match="unknown provider 'bedrock'"):
        provider_named("bedrock")
    assert len(simulate("llamacpp", requests)) == 1
