"""The API shapes' one registry: every shape whole, and a shape that lacks a part, names an
unknown provider or claims another's path refused when it is registered; the providers each
shape's requests are played under."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from ctxconf.cache import PROVIDERS
from ctxconf.errors import DataError
from ctxconf.shapes import SHAPES, ApiShape, provider_for, registered, shape_named
from ctxconf.shapes.shape import Ids

CHAT = SHAPES["openai-chat"]


def test_the_four_shapes_are_registered_whole() -> None:
    assert list(SHAPES) == ["openai-chat", "openai-responses", "anthropic", "gemini"]
    assert registered(SHAPES.values(), PROVIDERS) == SHAPES


def _broken(**changes: Any) -> ApiShape:
    return replace(CHAT, **{"name": "broken", "routes": (("/broken", "answer"),), **changes})


@pytest.mark.parametrize(
    ("shape", "problem"),
    [
        (_broken(body=None), "its body is not a function"),
        (_broken(events=None), "its events is not a function"),
        (_broken(parse=None), "its parse is not a function"),
        (_broken(read_cache=None), "its read_cache is not a function"),
        (_broken(refuse=None), "its refuse is not a function"),
        (_broken(routes=(("/broken", "count"),)), "no route answers it"),
        (_broken(routes=(("/broken", "answer"), ("/broken/n", "count"))), "a count route needs"),
        (_broken(providers=()), "no provider's cache rules apply to it"),
        (_broken(providers=("bedrock",)), "its provider 'bedrock' is not registered"),
        (_broken(title=""), "it has no name or no title"),
        (_broken(ids=None), "it names no answer's id"),
        (_broken(ids=Ids(CHAT.ids.answer, "x-request-id")), "a request-id header needs its ids"),
        (_broken(diagnostics="no"), "its diagnostics is not a function"),
        (replace(CHAT, name="again"), "path ending '/chat/completions' is 'openai-chat''s"),
        (CHAT, "API shape 'openai-chat' is registered twice"),
    ],
    ids=[
        "no-body",
        "no-events",
        "no-parse",
        "no-cache-reader",
        "no-refusal",
        "no-answer-route",
        "count-without-answer",
        "no-provider",
        "unknown-provider",
        "no-title",
        "no-ids",
        "header-without-ids",
        "diagnostics-not-a-function",
        "path-claimed",
        "twice",
    ],
)
def test_a_shape_missing_a_part_is_refused_as_it_is_registered(
    shape: ApiShape, problem: str
) -> None:
    with pytest.raises(DataError) as refused:
        registered([*SHAPES.values(), shape], PROVIDERS)
    assert problem in str(refused.value)


def test_the_provider_is_the_shapes_own_unless_another_that_serves_it_is_asked() -> None:
    assert provider_for("anthropic", None) == "anthropic"
    assert provider_for("openai-responses", None) == "openai"
    assert provider_for("gemini", None) == "gemini"
    assert provider_for("openai-chat", "llamacpp") == "llamacpp"
    with pytest.raises(DataError, match="serves openai-chat, openai-responses, not the"):
        provider_for("anthropic", "openai")
    with pytest.raises(DataError, match="not the gemini API shape"):
        provider_for("gemini", "openai")
    with pytest.raises(DataError, match="unknown provider 'bedrock'"):
        provider_for("anthropic", "bedrock")
    with pytest.raises(DataError, match="unknown API shape 'converse': one of openai-chat"):
        shape_named("converse")
