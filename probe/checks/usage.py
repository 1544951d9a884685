"""The usage check: whether the cached tokens the mock reported reach the harness's output, and
whether every figure it shows there is true: a request's count, or a running or whole total of
them (a session's, a process's, a turn's, each over every request, the loop's alone, or one
model's)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from ctxconf.shapes import parse_request
from ctxconf.shapes.wire import ends_with_result

from ..harness import ProbeRun, SessionRun
from .model import CheckDef, CheckResult, Sent, _process_of, _result


def _values_at(data: Any, keys: list[str]) -> Iterator[Any]:
    if not keys:
        yield data
        return
    head, rest = keys[0], keys[1:]
    if isinstance(data, dict):
        children = data.values() if head == "*" else ([data[head]] if head in data else [])
        for child in children:
            yield from _values_at(child, rest)
    elif isinstance(data, list) and head == "*":
        for child in data:
            yield from _values_at(child, rest)


def _json_documents(text: str) -> Iterator[Any]:
    try:
        yield json.loads(text)
        return
    except ValueError:
        pass
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(("{", "[")):
            try:
                yield json.loads(line)
            except ValueError:
                continue


def _shown_numbers(run: ProbeRun, key: str, file: str | None) -> list[int]:
    keys = key.split(".")
    numbers: list[int] = []
    for session in run.sessions:
        texts = [p.stdout for p in session.processes if not p.setup]
        if file:
            texts = [session.usage_file] if session.usage_file is not None else []
        for text in texts:
            for doc in _json_documents(text):
                for value in _values_at(doc, ["*", *keys] if isinstance(doc, list) else keys):
                    if isinstance(value, int) and not isinstance(value, bool):
                        numbers.append(value)
                # the key may sit at any depth of an event
                if isinstance(doc, dict):
                    numbers.extend(_deep(doc, keys))
    return numbers


def _deep(data: Any, keys: list[str]) -> Iterator[int]:
    if isinstance(data, dict):
        for value in _values_at(data, keys):
            if isinstance(value, int) and not isinstance(value, bool):
                yield value
        for child in data.values():
            if isinstance(child, (dict, list)):
                yield from _deep(child, keys)
    elif isinstance(data, list):
        for child in data:
            yield from _deep(child, keys)


@dataclass(frozen=True)
class _Count:
    """The cached tokens the mock reported for one answered request, and where it stands."""

    cached: int
    process: int | None
    model: str
    loop: bool  # one of the agent's loop, not a side request of the harness's own
    brings_turn: bool  # it ends with a message of the scenario: a turn starts here


def _model(entry: dict[str, Any]) -> str:
    model = entry["body"].get("model")
    if isinstance(model, str):
        return model
    path = str(entry.get("path", ""))  # Gemini names the model in the path
    return path.split("models/", 1)[-1].split(":", 1)[0]


def _counts(run: ProbeRun, session: SessionRun, sent: Sequence[Sent]) -> list[_Count]:
    loop = {s.n for s in sent}
    said = [turn.user for turn in run.scenario.turns]
    counts = []
    for entry in session.entries:
        if entry.get("kind") != "answer" or not isinstance(entry.get("body"), dict):
            continue
        request = parse_request(entry["shape"], entry["body"])
        brings = not ends_with_result(request) and any(
            text in request.last_user_text for text in said
        )
        cached = int(entry.get("usage", {}).get("cached", 0))
        process = _process_of(int(entry["n"]), session.processes)
        counts.append(_Count(cached, process, _model(entry), int(entry["n"]) in loop, brings))
    return counts


def _turns(counts: Sequence[_Count]) -> Iterator[list[_Count]]:
    """The counts of one process cut where each turn starts."""
    turn: list[_Count] = []
    for count in counts:
        if count.brings_turn and turn:
            yield turn
            turn = []
        turn.append(count)
    if turn:
        yield turn


def _totals(values: Sequence[int]) -> set[int]:
    """The running totals of `values` (the last is the whole), and the totals from each one on
    (a harness that starts counting later)."""
    return set(accumulate(values)) | {sum(values[i:]) for i in range(len(values))}


def _true_figures(counts: Sequence[_Count]) -> set[int]:
    """Every figure a harness may truly show: each request's count, and the running and whole
    totals of a session, a process and a turn, over every request, the loop's or one model's."""
    true = {c.cached for c in counts}
    models = {c.model for c in counts}
    kinds: list[Iterable[_Count]] = [counts, [c for c in counts if c.loop]]
    kinds += [[c for c in counts if c.model == model] for model in models]
    for kind in map(list, kinds):
        true |= _totals([c.cached for c in kind])
        for process in {c.process for c in kind}:
            own = [c for c in kind if c.process == process]
            true |= _totals([c.cached for c in own])
            for turn in _turns(own):
                true |= _totals([c.cached for c in turn])
    return true


def usage_shown(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    where = run.profile.usage_output
    if where is None:
        return _result(
            check,
            "not-testable",
            "the profile names no place where the harness shows cached tokens",
        )
    reported = [s.cached for sent in sessions for s in sent if s.cached > 0]
    if not reported:
        return _result(
            check,
            "not-testable",
            "the mock reported no cached tokens (its provider's rules read nothing from the cache)",
        )
    counts = [
        _counts(run, session, sent) for session, sent in zip(run.sessions, sessions, strict=False)
    ]
    true = set().union(*(_true_figures(c) for c in counts))
    shown = set(_shown_numbers(run, where.key, where.file))
    place = f"{where.key} in {where.file or 'its output'}"
    untrue = sorted(shown - true)
    figures = {
        "reported": reported,
        "shown": sorted(shown)[:20],
        "place": place,
        "untrue": untrue[:20],
        "session_totals": [sum(c.cached for c in session) for session in counts],
    }
    if untrue:
        totals = " and ".join(f"{t:,}" for t in figures["session_totals"])
        return _result(
            check,
            "fail",
            f"{untrue[0]:,} at {place} is neither a request's cached tokens nor a running or"
            f" whole total of them (the session's total: {totals};"
            f" {len(untrue)} of {len(shown)} figures shown are untrue)",
            **figures,
        )
    hits = shown & (true - {0})
    if hits:
        return _result(
            check,
            "pass",
            f"the cached tokens reach the harness's output ({max(hits)} at {place})",
            **figures,
        )
    return _result(
        check,
        "fail",
        f"the mock reported {len(reported)} cached counts, none shows at {place}",
        **figures,
    )
