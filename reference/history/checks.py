"""What a history case's steps must be that the case schema cannot say.

The problems the steps show on their own (a start that is not first, an id given twice, a step
after a crash other than reload, a torn crash with nothing written, a result for a call no step
made) are found by reading them; the rest (an end_turn with an open call, the damage of an
entry never written) by running them in the reference with the bundled numbers.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from .config import HistoryConfig
from .steps import StepFailed, steps_of

Problem = tuple[str, str, str]  # (pointer below the case, message, code)

# The steps that may write to the transcript (whether they do depends on the session).
_WRITING = frozenset(
    {"user", "end_turn", "branch", "fork", "switch", "checkpoint", "rewind", "trim", "compact"}
    | {"overflow", "command"}
)


def _static(steps: Sequence[Mapping[str, Any]]) -> Iterator[Problem]:
    given: set[str] = set()
    calls: set[str] = set()
    crashed = False
    wrote = False
    for index, step in enumerate(steps):
        where = f"/steps/{index}"
        op = step.get("op")
        if index == 0 and op != "start":
            yield (
                f"{where}/op",
                f"the first step is {op!r}: a history case starts with start",
                ("hist-start"),
            )
        elif index > 0 and op == "start":
            yield f"{where}/op", "a second start step: a history case is one session", "hist-start"
        if crashed and op != "reload":
            message = f"a {op} step after a crash: only reload may follow a crash"
            yield f"{where}/op", message, "hist-after-crash"
        crashed = op == "crash"
        entry_id = step.get("id")
        if isinstance(entry_id, str):
            if entry_id in given:
                yield f"{where}/id", f"id {entry_id} is given twice", "hist-id-reused"
            given.add(entry_id)
        if op == "assistant":
            for call in step.get("calls", []):
                if isinstance(call, dict) and isinstance(call.get("call"), str):
                    calls.add(call["call"])
        if op == "result" and step.get("call") not in calls:
            message = f"result for call {step.get('call')!r}, which no assistant step made"
            yield f"{where}/call", message, "hist-unknown-call"
        if op == "crash" and step.get("torn") is True and not wrote:
            message = "a torn crash with no write since the start or the last reload"
            yield f"{where}/torn", message, "hist-torn-nothing"
        if op == "command" and str(step.get("text", "")).split()[:1] in (["/shake"], ["/compact"]):
            if "id" not in step:
                yield where, f"{step['text']} needs an id", "hist-command-id"
        if op in ("start", "reload"):
            wrote = False
        elif op in _WRITING:
            wrote = True


@functools.cache
def _bundled() -> HistoryConfig | None:
    try:
        return HistoryConfig.load()
    except (OSError, KeyError, ValueError):
        return None  # no bundled history numbers: the schema and lint report that


# The problems of the steps checked last, by their value: each command that validates a spec
# runs every history case again (check validates, then runs; lint and regen read the same
# files), and a fuzzing search checks sessions by the thousand, hence the bound.
_CHECKED: dict[object, tuple[Problem, ...]] = {}
_CHECKED_MOST = 4096


def step_problems(steps: Sequence[object]) -> Iterator[Problem]:
    """Each problem of a history case's steps, placed below the case."""
    key = _value_key(steps)
    if key is None:  # a value JSON cannot hold: checked as it is, never kept
        yield from _step_problems(steps)
        return
    if key not in _CHECKED:
        if len(_CHECKED) >= _CHECKED_MOST:
            _CHECKED.clear()
        _CHECKED[key] = tuple(_step_problems(steps))
    yield from _CHECKED[key]


def _value_key(value: object) -> object:
    """`value` as a key that tells apart what JSON tells apart (1, 1.0 and true; the text of an
    exact number; the order of an object's keys); None for a value JSON has no word for."""
    if isinstance(value, dict):
        items = [(key, _value_key(item)) for key, item in value.items()]
        if any(not isinstance(key, str) or item is None for key, item in items):
            return None
        return (dict, tuple(items))
    if isinstance(value, list):
        keys = [_value_key(item) for item in value]
        return None if any(key is None for key in keys) else (list, tuple(keys))
    if value is None or isinstance(value, (str, int, float, Decimal)):
        return (type(value), value if isinstance(value, str) else str(value))
    return None


def _step_problems(steps: Sequence[object]) -> Iterator[Problem]:
    if not all(isinstance(step, dict) for step in steps):
        return
    found = list(_static([step for step in steps if isinstance(step, dict)]))
    yield from found
    if found:
        return
    config = _bundled()
    if config is None:
        return
    try:
        steps_of({"steps": steps}, config)
    except StepFailed as failed:
        yield f"/steps/{failed.index}", failed.error.message, failed.error.code
    except (KeyError, TypeError, AttributeError, IndexError, ValueError):
        return  # a step the schema refuses: the schema's message says where
