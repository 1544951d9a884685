"""The providers' one registry, and what it refuses."""

from __future__ import annotations

import pytest

from ctxconf.probe.cache import API_SHAPES, DEFAULT_PROVIDER, PROVIDERS, read_request, simulate
from ctxconf.probe.cache.request import PARAMS
from ctxconf.probe.errors import ProbeDataError

from .bodies import chat


def test_every_provider_is_registered_once_with_shapes_and_forks_it_can_know() -> None:
    assert sorted(PROVIDERS) == ["anthropic", "gemini", "llamacpp", "openai"]
    for name, provider in PROVIDERS.items():
        assert provider.name == name
        assert set(provider.shapes) <= set(API_SHAPES)
        assert set(provider.forks) <= set(PARAMS)


def test_each_shape_has_a_provider_that_serves_it() -> None:
    for shape in API_SHAPES:
        assert shape in PROVIDERS[DEFAULT_PROVIDER[shape]].shapes


def test_an_unknown_provider_and_a_shape_it_does_not_serve_are_refused() -> None:
    requests = [read_request("openai-chat", chat("S", []))]
    with pytest.raises(ProbeDataError, match="unknown provider 'bedrock': one of anthropic"):
        simulate("bedrock", requests)
    with pytest.raises(ProbeDataError, match="does not serve the openai-chat shape"):
        simulate("anthropic", requests)
    assert len(simulate("llamacpp", requests)) == 1
