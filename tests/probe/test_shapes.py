"""The API shapes' one registry: every shape whole, each path one shape's, and a shape that
lacks a part, names an unknown provider or claims another's path refused when it is
registered."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ctxconf.cache import PROVIDERS
from ctxconf.probe.errors import ProbeDataError
from ctxconf.probe.profile import load_profile
from ctxconf.probe.server import route
from ctxconf.probe.shapes import SHAPES, ApiShape, provider_for, registered, shape_named

from .helpers import fake_profile

CHAT = SHAPES["openai-chat"]


def test_the_four_shapes_are_registered_whole() -> None:
    assert list(SHAPES) == ["openai-chat", "openai-responses", "anthropic", "gemini"]
    assert registered(SHAPES.values(), PROVIDERS) == SHAPES


@pytest.mark.parametrize(
    ("path", "asked"),
    [
        ("/v1/chat/completions", ("answer", "openai-chat")),
        ("/v1/responses", ("answer", "openai-responses")),
        ("/v1/messages", ("answer", "anthropic")),
        ("/v1/messages/count_tokens", ("count", "anthropic")),
        ("/v1beta/models/gemini-2.5-flash:generateContent", ("answer", "gemini")),
        ("/v1beta/models/g:streamGenerateContent?alt=sse", ("stream", "gemini")),
        ("/v1beta/models/g:countTokens", ("count", "gemini")),
        ("/v1/embeddings", ("", None)),
    ],
)
def test_each_path_is_one_shapes(path: str, asked: tuple[str, str | None]) -> None:
    assert route("POST", path) == asked


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
        "path-claimed",
        "twice",
    ],
)
def test_a_shape_missing_a_part_is_refused_as_it_is_registered(
    shape: ApiShape, problem: str
) -> None:
    with pytest.raises(ProbeDataError) as refused:
        registered([*SHAPES.values(), shape], PROVIDERS)
    assert problem in str(refused.value)


def test_a_provider_serves_only_the_shapes_that_name_it() -> None:
    assert provider_for("anthropic", None) == "anthropic"
    assert provider_for("openai-chat", "llamacpp") == "llamacpp"
    with pytest.raises(ProbeDataError, match="serves openai-chat, openai-responses, not the"):
        provider_for("anthropic", "openai")
    with pytest.raises(ProbeDataError, match="unknown API shape 'converse': one of openai-chat"):
        shape_named("converse")


def test_a_profile_naming_an_unregistered_shape_is_refused_with_its_place(tmp_path: Path) -> None:
    path = fake_profile(tmp_path)
    profile = json.loads(path.read_text())
    path.write_text(json.dumps({**profile, "api": "bedrock-converse"}, indent=1))
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if '"api"' in text)
    with pytest.raises(ProbeDataError) as refused:
        load_profile(str(path))
    assert str(refused.value) == (
        f"{path}:{line}:9: at /api: 'bedrock-converse' is not one of 'openai-chat', "
        "'openai-responses', 'anthropic', 'gemini'"
    )
