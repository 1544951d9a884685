"""Scenarios as data: the sessions to play, each turn's user message and the model's steps.

A scenario file is JSON checked against `probe/data/schemas/scenario.schema.json`. Steps are
abstract (read a file, run a command, answer with text); `mapping` turns each into a call of
a tool the harness offers. The steps of every turn form one list, numbered from 0, which the
mock indexes by the number of assistant turns a request carries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from ctxconf.cache.provider_diagnostics import RETENTION_SECONDS, DiagnosticsOptions
from ctxconf.cache.reasoning_models import chat_family
from ctxconf.errors import DataError
from ctxconf.shapes import shape_named
from ctxconf.shapes.reasoning import ReasoningOptions
from ctxconf.userfiles.limits import LimitError, parse_json

from .errors import ProbeDataError
from .schemas import validate_data


@dataclass(frozen=True)
class Step:
    kind: str  # "read", "bash" or "text"
    value: str  # the path, the command or the text
    label: str | None  # what a check looks for: "reread", "long-output", …
    # A call's step only: the text said before the call, and the further calls of the same
    # answer (an answer of several blocks, as models give).
    say: str | None = None
    more: tuple[Step, ...] = ()
    # What the model reasons before the step, where the request asks (None: a default text),
    # and whether it comes redacted (Anthropic's redacted_thinking).
    think: str | None = None
    redacted: bool = False


@dataclass(frozen=True)
class Turn:
    user: str
    steps: tuple[Step, ...]
    new_process: bool  # played by a new process resuming the session
    clock: datetime | None  # the clock when this turn starts, if it moves
    # Seconds after the mock sends this turn's first step, a call, before the harness's process
    # group is killed: a crash while the harness runs the tool.
    kill_after_call_s: float | None = None
    # What happens in the session before this turn (see `events`): the instruction file's new
    # text, and the harness command the turn is entered through.
    edit_instructions: str | None = None
    command: str | None = None  # "plan_mode", "model_switch" or "compact"
    # Seconds the provider's clock passes before this turn, none of them waited.
    pause: float = 0.0


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    files: dict[str, str]
    sessions: tuple[datetime | None, ...]  # each session's starting clock (None: the real one)
    turns: tuple[Turn, ...]
    # The changes it makes mid-session: the instruction file's first text, the probe's MCP
    # server's tools (listed once the first request has come).
    instructions: str | None = None
    mcp_tools: tuple[str, ...] = ()
    # How the mock gives the providers' own cache diagnostics.
    diagnostics: DiagnosticsOptions = field(default_factory=DiagnosticsOptions)
    # How the mock's model reasons where a request asks for it.
    reasoning: ReasoningOptions = field(default_factory=ReasoningOptions)

    def redacts(self) -> bool:
        """Whether a step's reasoning comes redacted, which only Anthropic's answers carry."""
        return any(step.redacted for step in self.steps())

    def steps(self) -> list[Step]:
        return [step for turn in self.turns for step in turn.steps]

    def first_step_of_turn(self, turn: int) -> int:
        return sum(len(t.steps) for t in self.turns[:turn])

    def turn_of_step(self, step: int) -> int | None:
        """The turn whose steps hold `step`; None past the last."""
        first = 0
        for number, turn in enumerate(self.turns):
            if first <= step < first + len(turn.steps):
                return number
            first += len(turn.steps)
        return None

    def killed_turn(self) -> int | None:
        """The turn whose process is killed mid-call, if the scenario has one."""
        return next((n for n, t in enumerate(self.turns) if t.kill_after_call_s is not None), None)

    def rebased_turns(self, after_kill: bool = True) -> dict[str, int]:
        """The turns after a kill or a compaction, by user message, each with its first step:
        the history a resumed harness sends may keep, repair or drop the interrupted call, and a
        compacted one starts over, so the mock counts their steps from the request that brings
        the message, not from the session's start."""
        killed = self.killed_turn() if after_kill else None
        compacted = self.compact_turn()
        cuts = [n for n in (killed, compacted) if n is not None]
        if not cuts:
            return {}
        first = min(cuts)
        return {t.user: self.first_step_of_turn(n) for n, t in enumerate(self.turns) if n > first}

    def compact_turn(self) -> int | None:
        """The turn entered through the harness's compaction command, if the scenario has one."""
        return next((n for n, t in enumerate(self.turns) if t.command == "compact"), None)

    def pauses(self) -> dict[int, float]:
        """The seconds the provider's clock passes before each turn that pauses, by the turn's
        first step."""
        return {self.first_step_of_turn(n): t.pause for n, t in enumerate(self.turns) if t.pause}

    def commands(self) -> list[str]:
        """The harness commands the scenario enters, in turn order."""
        return [t.command for t in self.turns if t.command is not None]


def _step(data: dict[str, Any]) -> Step:
    for kind in ("read", "bash", "text"):
        if kind in data:
            more = tuple(_step(call) for call in data.get("with", ()))
            think, redacted = data.get("think"), bool(data.get("redacted"))
            label, say = data.get("label"), data.get("say")
            return Step(kind, str(data[kind]), label, say, more, think, redacted)
    raise AssertionError("the schema allows no other step")  # pragma: no cover


def _diagnostics(data: dict[str, Any]) -> DiagnosticsOptions:
    retention = data.get("retention_s", RETENTION_SECONDS)
    return DiagnosticsOptions(bool(data.get("beta")), bool(data.get("pending")), float(retention))


def _reasoning(data: dict[str, Any], source: str) -> ReasoningOptions:
    """The reasoning settings; a Chat provider that is not one of the data's families is the
    scenario's error, placed."""
    chat = data.get("chat")
    if chat is not None:
        try:
            chat_family(chat)
        except DataError as e:
            raise ProbeDataError(f"{source}: at /reasoning/chat: {e.message}") from None
    return ReasoningOptions(chat, bool(data.get("binding")))


def _clock(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _files(data: dict[str, Any]) -> dict[str, str]:
    files: dict[str, str] = {}
    for name, spec in data.items():
        if isinstance(spec, str):
            files[name] = spec
        else:  # {"lines": N, "template": "..."}: a text too dull to write out
            files[name] = "".join(
                spec["template"].format(n=n) + "\n" for n in range(1, spec["lines"] + 1)
            )
    return files


def _check_kills(data: dict[str, Any], source: str) -> None:
    """A kill needs a call to interrupt and a later turn to resume: the schema cannot say so."""
    turns = data["turns"]
    for number, turn in enumerate(turns):
        if "kill_after_call_s" not in turn:
            continue
        where = f"{source}: at /turns/{number}/kill_after_call_s"
        if "text" in turn["steps"][0]:
            raise ProbeDataError(f"{where}: the turn's first step must be a call (read or bash)")
        if number == len(turns) - 1:
            raise ProbeDataError(f"{where}: a killed turn needs a later turn to resume it")
        if number == 0:
            raise ProbeDataError(f"{where}: a killed turn needs a complete turn before it")
        if any("kill_after_call_s" in t for t in turns[number + 1 :]):
            raise ProbeDataError(f"{where}: a scenario kills one turn at most")


def _check_events(data: dict[str, Any], source: str) -> None:
    """An edit needs a file to edit and a turn before it; a compaction needs a turn before it
    to compact, one after it to judge, and one text step, the summary the mock answers with."""
    turns = data["turns"]
    for number, turn in enumerate(turns):
        if "edit_instructions" in turn:
            where = f"{source}: at /turns/{number}/edit_instructions"
            if "instructions" not in data:
                raise ProbeDataError(f"{where}: the scenario has no `instructions` to edit")
            if number == 0:
                raise ProbeDataError(f"{where}: the first turn has no turn before it to edit after")
        command = turn.get("command")
        if command is None:
            continue
        where = f"{source}: at /turns/{number}/command"
        if number == 0:
            raise ProbeDataError(f"{where}: a command needs a turn before it")
        if command == "compact":
            if number == len(turns) - 1:
                raise ProbeDataError(f"{where}: a compaction needs a later turn to judge")
            if len(turn["steps"]) != 1 or "text" not in turn["steps"][0]:
                raise ProbeDataError(f"{where}: a compaction's one step is its summary, a text")
    if sum(1 for t in turns if t.get("command") == "compact") > 1:
        raise ProbeDataError(f"{source}: at /turns: a scenario compacts once at most")


def scenario_from_data(data: Any, source: str) -> Scenario:
    validate_data(data, "scenario", source)
    _check_kills(data, source)
    _check_events(data, source)
    return Scenario(
        name=data["name"],
        description=data["description"],
        files=_files(data.get("files", {})),
        sessions=tuple(_clock(s.get("clock")) for s in data.get("sessions", [{}])),
        turns=tuple(
            Turn(
                user=t["user"],
                steps=tuple(_step(s) for s in t["steps"]),
                new_process=bool(t.get("new_process", False)),
                clock=_clock(t.get("clock")),
                pause=float(t.get("pause", 0)),
                kill_after_call_s=t.get("kill_after_call_s"),
                edit_instructions=t.get("edit_instructions"),
                command=t.get("command"),
            )
            for t in data["turns"]
        ),
        instructions=data.get("instructions"),
        mcp_tools=tuple(data.get("mcp", {}).get("tools", ())),
        diagnostics=_diagnostics(data.get("diagnostics", {})),
        reasoning=_reasoning(data.get("reasoning", {}), source),
    )


def check_reasoning(scenario: Scenario, api: str) -> None:
    """A step whose reasoning comes redacted needs a shape whose answers carry it: refused,
    placed, before the harness starts."""
    way = shape_named(api).reasoning
    if way is not None and way.redacts:
        return
    for number, turn in enumerate(scenario.turns):
        for index, step in enumerate(turn.steps):
            if step.redacted:
                raise ProbeDataError(
                    f"scenario {scenario.name}: at /turns/{number}/steps/{index}/redacted:"
                    f" {shape_named(api).title} answers carry no redacted reasoning"
                    " (Anthropic Messages only)"
                )


def bundled_scenarios() -> list[str]:
    folder = resources.files("ctxconf.probe") / "data" / "scenarios"
    return sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))


def load_scenario(name_or_path: str) -> Scenario:
    """A bundled scenario by name, or a scenario file by path."""
    if name_or_path in bundled_scenarios():
        file = resources.files("ctxconf.probe") / "data" / "scenarios" / f"{name_or_path}.json"
        source, text = f"scenario {name_or_path}", file.read_text(encoding="utf-8")
    else:
        path = Path(name_or_path)
        if not path.is_file():
            known = ", ".join(bundled_scenarios())
            raise ProbeDataError(f"{name_or_path}: no such scenario (bundled: {known})")
        source, text = str(path), path.read_text(encoding="utf-8")
    try:
        data = parse_json(text)  # bounded like every JSON read from outside
    except json.JSONDecodeError as e:
        raise ProbeDataError(f"{source}:{e.lineno}:{e.colno}: {e.msg}") from None
    except LimitError as e:
        raise ProbeDataError(f"{source}: {e}") from None
    return scenario_from_data(data, source)


__all__ = [
    "Scenario",
    "Step",
    "Turn",
    "bundled_scenarios",
    "check_reasoning",
    "load_scenario",
    "scenario_from_data",
]
