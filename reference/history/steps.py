"""A history case run step by step: each step's fields handed to a `HistorySession` method."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from .config import HistoryConfig
from .entries import Call
from .session import HistorySession, HistoryStepError

Step = Mapping[str, Any]


def whole(value: object) -> int:
    """A case's whole number, read as an int or an exact Decimal."""
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise HistoryStepError("hist-number", f"{value!r} is not a whole number")
    if isinstance(value, Decimal) and value != value.to_integral_value():
        raise HistoryStepError("hist-number", f"{value} is not a whole number")
    return int(value)


def _silent(
    action: Callable[[HistorySession, Step], None],
) -> Callable[[HistorySession, Step], str]:
    def run(session: HistorySession, step: Step) -> str:
        action(session, step)
        return ""

    return run


def _calls(step: Step) -> list[Call]:
    return [Call(c["call"], c["tool"], c.get("args", {})) for c in step.get("calls", [])]


_OPS: dict[str, Callable[[HistorySession, Step], str]] = {
    "user": _silent(lambda s, st: s.user(st["id"], st["text"], st.get("images", []))),
    "assistant": _silent(lambda s, st: s.assistant(st["id"], st.get("text", ""), _calls(st))),
    "result": _silent(
        lambda s, st: s.result(
            st["id"],
            st["call"],
            st["text"],
            st.get("images", []),
            error=st.get("error", False),
            uneventful=st.get("uneventful", False),
        )
    ),
    "end_turn": _silent(lambda s, st: s.end_turn()),
    "crash": _silent(lambda s, st: s.crash(st.get("torn", False))),
    "reload": lambda s, st: s.reload(),
    "damage": _silent(lambda s, st: s.damage(st["entry"])),
    "retry": lambda s, st: s.retry(),
    "request": lambda s, st: s.request(),
    "transcript": lambda s, st: s.transcript(),
    "tree": lambda s, st: s.tree(),
    "branch": lambda s, st: s.branch(st["to"]),
    "fork": lambda s, st: s.fork(st["name"]),
    "switch": lambda s, st: s.switch(st["to"]),
    "checkpoint": lambda s, st: s.checkpoint(st["label"]),
    "rewind": lambda s, st: s.rewind(st["label"], st["id"], st["report"]),
    "trim": lambda s, st: s.trim(st["id"], whole(st["tokens"])),
    "compact": lambda s, st: s.compact(st["id"], st.get("summary")),
    "overflow": lambda s, st: s.overflow(st["id"], st.get("summary")),
    "command": lambda s, st: s.command(st["text"], st.get("id"), st.get("summary")),
}

HISTORY_OPS = frozenset({"start", *_OPS})


def start_session(config: HistoryConfig, step: Step) -> HistorySession:
    """A session as a case's `start` step describes it."""
    window = whole(step["window"])
    if window < 1:
        raise HistoryStepError("hist-number", "the window is at least 1 token")
    return HistorySession(config, window=window, vision=bool(step["vision"]))


def steps_of(case: Mapping[str, Any], config: HistoryConfig) -> list[str]:
    """The text each step of `case` shows; HistoryStepError at the first step it cannot take,
    with the step's index in `index`."""
    steps: Sequence[Step] = case["steps"]
    if not steps or steps[0].get("op") != "start":
        raise StepFailed(0, HistoryStepError("hist-start", "a history case starts with start"))
    try:
        session = start_session(config, steps[0])
    except HistoryStepError as error:
        raise StepFailed(0, error) from error
    outputs = [""]
    for index, step in enumerate(steps[1:], start=1):
        op = step.get("op")
        try:
            if op == "start":
                raise HistoryStepError("hist-start", "a second start: a case is one session")
            if op not in _OPS:
                raise HistoryStepError("hist-op", f"no history op {op!r}")
            outputs.append(_OPS[op](session, step))
        except HistoryStepError as error:
            raise StepFailed(index, error) from error
    return outputs


class StepFailed(ValueError):
    """A case's step the session cannot take, with its index."""

    def __init__(self, index: int, error: HistoryStepError) -> None:
        super().__init__(f"step {index}: {error.message}")
        self.index = index
        self.error = error


def run_history_steps(case: Mapping[str, Any], config: HistoryConfig) -> list[str]:
    """The text each step of a `history` case shows, with the area's config already read."""
    return steps_of(case, config)


def run_history_case(case: Mapping[str, Any], loop: Mapping[str, Any]) -> list[str]:
    """The text each step of a `history` case shows, in a fresh session; `start` shows ""."""
    return steps_of(case, HistoryConfig.from_loop(loop))
