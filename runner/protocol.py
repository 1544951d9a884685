"""Protocol v1: the messages between the runner and an implementation, built and checked.

The same messages travel over every transport (JSON lines, HTTP, a Python module); each has a
JSON Schema in `schemas/protocol/`. Fields a message does not know are ignored, so the protocol
can grow without breaking implementations.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

PROTOCOL_VERSION = 1

# What a case carries that the implementation must never see.
_CASE_FIELDS_SENT = ("limits", "steps")


class ProtocolError(Exception):
    """A message that breaks the protocol; `outputs` keeps what a run response did carry."""

    def __init__(self, message: str, outputs: Sequence[object] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.outputs = list(outputs) if outputs is not None else None


def hello_request() -> dict[str, Any]:
    return {"cmd": "hello", "protocol": PROTOCOL_VERSION}


def stop_request() -> dict[str, Any]:
    return {"cmd": "stop"}


def run_request(seq: int, area: str, case: Mapping[str, Any]) -> dict[str, Any]:
    """The run message for `case`: its limits and steps only, never its expected texts."""
    sent = {field: case[field] for field in _CASE_FIELDS_SENT if field in case}
    return {"cmd": "run", "seq": seq, "area": area, "case": sent}


@dataclass(frozen=True)
class Implementation:
    name: str
    version: str
    language: str


@dataclass(frozen=True)
class Hello:
    implementation: Implementation
    areas: tuple[str, ...]


def _describe(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)


def _is_integer(value: object) -> bool:
    """An integer as JSON has it: `true` is a boolean, not 1; `1.0` is the number 1."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _json_excerpt(value: object) -> str:
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = repr(value)
    return shown if len(shown) <= _SURPLUS_CHARS else shown[: _SURPLUS_CHARS - 1] + "…"


def parse_hello(response: object) -> Hello:
    """The implementation's answer to hello, or ProtocolError saying what is wrong with it."""
    if not isinstance(response, dict):
        raise ProtocolError(f"the hello response is {_describe(response)}, not an object")
    problems: list[str] = []
    protocol = response.get("protocol")
    if not _is_integer(protocol):
        problems.append(
            f'"protocol" is {_json_excerpt(protocol)}, not a version: a version is an integer, '
            f"and the runner speaks {PROTOCOL_VERSION}"
        )
    elif protocol != PROTOCOL_VERSION:
        problems.append(f'"protocol" is {protocol!r}, the runner speaks {PROTOCOL_VERSION}')
    implementation = response.get("implementation")
    fields: dict[str, str] = {}
    if not isinstance(implementation, dict):
        problems.append('"implementation" must be an object with name, version and language')
    else:
        for key in ("name", "version", "language"):
            value = implementation.get(key)
            if not isinstance(value, str) or not value:
                problems.append(f'"implementation.{key}" must be a non-empty string')
            else:
                fields[key] = value
    areas = response.get("areas")
    if not isinstance(areas, list) or not all(isinstance(a, str) for a in areas):
        problems.append('"areas" must be an array of area names, e.g. ["context"]')
    if problems:
        raise ProtocolError("bad hello response: " + "; ".join(problems))
    assert isinstance(areas, list)
    return Hello(Implementation(**fields), tuple(areas))


@dataclass(frozen=True)
class RunReply:
    """A well-formed run response: the outputs, or the implementation's error or skip reason.

    An output may be `{"error": "…"}`: the implementation could not do that one step. Its text
    in `outputs` is then "" and its message is in `step_errors`, by step index."""

    kind: Literal["outputs", "error", "skipped"]
    outputs: tuple[str, ...] = ()
    message: str = ""
    step_errors: Mapping[int, str] = field(default_factory=dict)


# How many surplus outputs a "too many outputs" message shows, and how much of each.
_SURPLUS_SHOWN = 5
_SURPLUS_CHARS = 200


def _steps_named(indexes: Sequence[int], ops: Sequence[str]) -> str:
    named = [f"{i} ({ops[i]})" if i < len(ops) else str(i) for i in indexes]
    word = "step" if len(named) == 1 else "steps"
    return f"{word} {', '.join(named)}"


def _excerpt(text: object) -> str:
    shown = repr(text)
    return shown if len(shown) <= _SURPLUS_CHARS else shown[: _SURPLUS_CHARS - 1] + "…"


def _count_problem(value: list[object], steps: int, ops: Sequence[str]) -> str:
    if len(value) < steps:
        missing = _steps_named(range(len(value), steps), ops)
        return (
            f"too few outputs: expected {steps} (one per step), got {len(value)}: "
            f"no output for {missing}"
        )
    surplus = value[steps:]
    shown = "; ".join(_excerpt(text) for text in surplus[:_SURPLUS_SHOWN])
    more = f"; … and {len(surplus) - _SURPLUS_SHOWN} more" if len(surplus) > _SURPLUS_SHOWN else ""
    return (
        f"too many outputs: expected {steps} (one per step), got {len(value)}; "
        f"the surplus: {shown}{more}"
    )


def _step_error(item: object) -> str | None:
    """The message of an output of the form {"error": "…"}, else None."""
    if isinstance(item, dict) and isinstance(item.get("error"), str):
        return str(item["error"])
    return None


def parse_run_response(
    response: object, seq: int, steps: int, *, ops: Sequence[str] = ()
) -> RunReply:
    """Check a run response against the request it answers (`seq`, `steps` steps, whose ops
    `ops` name the steps in messages)."""
    if not isinstance(response, dict):
        raise ProtocolError(f"not a protocol message: the response is {_describe(response)}")
    if "seq" not in response:
        raise ProtocolError('not a run response: it has no "seq"')
    if response["seq"] != seq:
        raise ProtocolError(f"wrong seq: the response says {response['seq']!r}, the request {seq}")
    kinds = [kind for kind in ("outputs", "error", "skipped") if kind in response]
    if len(kinds) != 1:
        found = " and ".join(f'"{k}"' for k in kinds) if kinds else "none"
        raise ProtocolError(
            f'a run response carries exactly one of "outputs", "error" or "skipped"; found {found}'
        )
    kind = kinds[0]
    value = response[kind]
    if kind != "outputs":
        if not isinstance(value, str):
            raise ProtocolError(f'"{kind}" must be a string, not {_describe(value)}')
        return RunReply("error" if kind == "error" else "skipped", message=value)
    if not isinstance(value, list):
        raise ProtocolError(f'"outputs" must be an array of strings, not {_describe(value)}')
    step_errors = {i: m for i, item in enumerate(value) if (m := _step_error(item)) is not None}
    bad = [i for i, text in enumerate(value) if not isinstance(text, str) and i not in step_errors]
    if bad:
        raise ProtocolError(
            f'"outputs" must hold strings (or {{"error": "…"}} for a step that could not run); '
            f"item {bad[0]} is {_describe(value[bad[0]])}",
            [text if isinstance(text, str) else None for text in value],
        )
    texts = [text if isinstance(text, str) else "" for text in value]
    if len(value) != steps:
        received: list[object] = [None if i in step_errors else t for i, t in enumerate(texts)]
        raise ProtocolError(_count_problem(value, steps, ops), received)
    return RunReply("outputs", outputs=tuple(texts), step_errors=step_errors)
