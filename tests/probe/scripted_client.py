"""A scripted client of the running mock: it sends the request bodies it is given, in order, to
one API shape's path, as a harness would, and keeps each answer and what the probe's results
make of the session (its figures and diagnoses, played again from the mock's log).

The mock's cache sees the client's own clock, 30 seconds a request, so no figure depends on how
fast the machine runs."""

from __future__ import annotations

import itertools
import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxconf.cache import bundled_prices
from ctxconf.probe.records import SessionRun
from ctxconf.probe.scenario import Step
from ctxconf.probe.server import MockServer, Script, read_log
from ctxconf.probe.usage_figures import RequestFigures, session_figures

PATHS = {"anthropic": "/v1/messages", "openai-chat": "/v1/chat/completions"}
SECONDS_APART = 30.0


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict[str, Any]


@dataclass(frozen=True)
class Played:
    answers: list[Answer]
    rows: tuple[RequestFigures, ...]  # the results' figures and diagnosis of each request


def _post(url: str, body: dict[str, Any]) -> Answer:
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return Answer(response.status, json.load(response))
    except urllib.error.HTTPError as refused:
        with refused:
            return Answer(refused.code, json.load(refused))


def play(folder: Path, shape: str, bodies: Sequence[dict[str, Any]]) -> Played:
    """`bodies` sent one after another to a fresh mock, each answered before the next."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "requests.jsonl"
    ticks = itertools.count(0.0, SECONDS_APART)
    script = Script([Step("text", "Done.", None)], str(folder))
    with MockServer(script, log, clock=lambda: next(ticks)) as mock:
        answers = [_post(mock.base_url + PATHS[shape], body) for body in bodies]
    session = SessionRun(index=0, clock=None, entries=read_log(log), processes=[])
    (figures,) = session_figures(session, bundled_prices())
    return Played(answers, figures.requests)
