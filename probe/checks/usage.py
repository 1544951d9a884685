"""The usage check: whether the cached tokens the mock reported reach the harness's output."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..harness import ProbeRun
from .model import CheckDef, CheckResult, Sent, _result


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
    candidates = set(reported) | {sum(reported)}
    for session, sent in zip(run.sessions, sessions, strict=False):
        for number in range(len(session.processes)):
            own = [s.cached for s in sent if s.process == number]
            candidates.add(sum(own))
            candidates.update(sum(own[i:]) for i in range(len(own)))
    shown = _shown_numbers(run, where.key, where.file)
    place = f"{where.key} in {where.file or 'its output'}"
    figures = {"reported": reported, "shown": sorted(set(shown))[:20], "place": place}
    if set(shown) & (candidates - {0}):
        hit = sorted(set(shown) & candidates)[-1]
        return _result(
            check,
            "pass",
            f"the cached tokens reach the harness's output ({hit} at {place})",
            **figures,
        )
    return _result(
        check,
        "fail",
        f"the mock reported {len(reported)} cached counts, none shows at {place}",
        **figures,
    )
