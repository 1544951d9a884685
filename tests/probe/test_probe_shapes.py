"""The probe's side of the API shapes: each path the mock is asked on is one shape's, and a
profile naming a shape that is not registered is refused at its place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxconf.probe.errors import ProbeDataError
from ctxconf.probe.profile import load_profile
from ctxconf.probe.server import route

from .helpers import fake_profile


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
