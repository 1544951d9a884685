"""What a scenario's mid-session changes did, read after the run: whether each happened where
the harness could see it (`changes_shortfalls`), and where each falls among the requests.

An edit of the instruction file happened when the mock made it and the harness had read the
file's first text before; the MCP server's late tools reached the harness when it listed them
after they came (and, for a harness that resumes, again reordered); a compaction came when a
request answered the compaction turn's step without the command sent as a message; a model
switch reached the wire when a parameter that forks the cache changed at its turn; plan mode was
entered when the model was told of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ctxconf.shapes import parse_request
from ctxconf.shapes.wire import text_of_message

from ..events import command_message
from ..harness import ProbeRun, SessionRun
from ..usage_figures import played_requests
from .model import Need, Sent

SWITCHED = ("model", "effort", "thinking")


def needle(text: str) -> str:
    """The first line of a text as it stands inside a JSON body: what a request holding the
    text holds, whatever its shape."""
    first = text.strip().splitlines()[0]
    return json.dumps(first, ensure_ascii=False)[1:-1]


def holds(entry: dict[str, Any], text: str) -> bool:
    return needle(text) in json.dumps(entry.get("body"), ensure_ascii=False)


def answered(session: SessionRun) -> Iterator[dict[str, Any]]:
    return (e for e in session.entries if e.get("kind") == "answer")


def edit_marks(run: ProbeRun, session: SessionRun) -> dict[int, int]:
    """The edited turns, each with the number of the answer the edit came before."""
    marks = {e.get("step"): int(e["n"]) for e in answered(session) if e.get("edited")}
    out = {}
    for number, turn in enumerate(run.scenario.turns):
        step = run.scenario.first_step_of_turn(number) - 1
        if turn.edit_instructions is not None and step in marks:
            out[number] = marks[step]
    return out


def compaction(session: SessionRun) -> dict[str, Any] | None:
    """The compaction's first request (a harness may ask for the summary more than once)."""
    return next((e for e in answered(session) if e.get("compaction")), None)


def compaction_requests(session: SessionRun) -> list[dict[str, Any]]:
    """Every request the compaction sent, in order (a harness may ask for the summary again)."""
    return [e for e in answered(session) if e.get("compaction")]


def compaction_end(session: SessionRun) -> int | None:
    """The number of the compaction's last request: the history starts over after it."""
    numbers = [int(e["n"]) for e in answered(session) if e.get("compaction")]
    return max(numbers) if numbers else None


def turn_text(run: ProbeRun, turn: int) -> str:
    return command_message(run.profile, run.scenario.turns[turn])


def first_of_turn(run: ProbeRun, sent: list[Sent], turn: int) -> Sent | None:
    """The first loop request that carries the turn's message."""
    text = turn_text(run, turn)
    return next((s for s in sent if any(text in t for t in s.request.user_texts)), None)


def era_starts(run: ProbeRun, session: SessionRun, sent: list[Sent]) -> list[int]:
    """The requests that start a new making of the prompt and tools the spec allows: the first
    after a compaction, the first of a model switch's turn."""
    starts = []
    end = compaction_end(session)
    if end is not None:
        after = next((s.n for s in sent if s.n > end), None)
        if after is not None:
            starts.append(after)
    for number, turn in enumerate(run.scenario.turns):
        if turn.command == "model_switch":
            first = first_of_turn(run, sent, number)
            if first is not None:
                starts.append(first.n)
    return sorted(set(starts))


def eras(run: ProbeRun, session: SessionRun, sent: list[Sent]) -> list[list[Sent]]:
    """The loop's requests cut where the scenario lets the harness make its prompt again."""
    out: list[list[Sent]] = [[]]
    starts = set(era_starts(run, session, sent))
    for s in sent:
        if s.n in starts and out[-1]:
            out.append([])
        out[-1].append(s)
    return [era for era in out if era]


def _edit(run: ProbeRun, session: SessionRun, where: str) -> list[tuple[int | None, str]]:
    name = run.profile.instructions_file or "the instruction file"
    marks = edit_marks(run, session)
    out: list[tuple[int | None, str]] = []
    for number, turn in enumerate(run.scenario.turns):
        if turn.edit_instructions is not None and number not in marks:
            out.append(
                (
                    number,
                    f"{where}the edit of {name} before turn {number + 1} was never made: turn"
                    f" {number} never got its last answer",
                )
            )
    first_text = run.scenario.instructions
    if marks and first_text is not None:
        before = min(marks.values())
        if not any(holds(e, first_text) for e in answered(session) if e["n"] <= before):
            out.append(
                (
                    None,
                    f"{where}the harness never read {name}: its first text is in no request"
                    " before the edit",
                )
            )
    return out


def _mcp(run: ProbeRun, session: SessionRun, where: str) -> list[tuple[int | None, str]]:
    log = session.mcp_log
    if not any(e.get("event") == "initialize" for e in log):
        return [(None, f"{where}the harness never connected to the probe's MCP server")]
    listed = [e for e in log if e.get("event") == "tools/list" and e.get("tools")]
    if not listed:
        return [
            (
                None,
                f"{where}the harness never asked for the MCP server's tools after they came"
                " (notifications/tools/list_changed): the late tools never reached it",
            )
        ]
    resumes = run.profile.drive.mode == "per-turn" and len(session.processes) > 1
    if resumes and not any(int(e.get("start", 1)) > 1 for e in listed):
        return [
            (
                None,
                f"{where}the resumed harness never listed the MCP server's tools again: the"
                " reordered tools never reached it",
            )
        ]
    return []


def _params(session: SessionRun) -> dict[int, dict[str, str | None]]:
    return {e["n"]: dict(r.params) for e, r in played_requests(session)}


def _plan_told(before: Sent, after: Sent, own: str) -> bool:
    def prefix(s: Sent) -> str:
        return ((s.request.system or "") + s.request.canonical_tools()).lower()

    if prefix(after).count("plan") > prefix(before).count("plan"):
        return True
    new = after.request.messages[len(before.request.messages) :]
    text = "\n".join(text_of_message(m) for m in new).replace(own, "")
    return "plan" in text.lower()


def _commands(
    run: ProbeRun, session: SessionRun, sent: list[Sent], where: str
) -> list[tuple[int | None, str]]:
    out: list[tuple[int | None, str]] = []
    for number, turn in enumerate(run.scenario.turns):
        if turn.command is None:
            continue
        text = turn_text(run, number)
        head = f"{where}turn {number + 1}"
        if turn.command == "compact":
            done = compaction(session)
            if done is None:
                out.append((number, f"{head}: no compaction request came after {text!r}"))
            elif any(text == t.strip() for t in _user_texts(done)):
                out.append(
                    (
                        number,
                        f"{head}: the harness sent {text!r} to the model as the person's message"
                        f" (request {done['n']}): it made no compaction",
                    )
                )
            continue
        first = first_of_turn(run, sent, number)
        before = [s for s in sent if first is not None and s.n < first.n]
        if first is None or not before:
            continue  # it sent nothing: the turns' shortfall says so
        if turn.command == "model_switch":
            params = _params(session)
            old, new = params.get(before[-1].n, {}), params.get(first.n, {})
            if all(old.get(k) == new.get(k) for k in SWITCHED):
                said = ", ".join(f"{k} {new.get(k)}" for k in SWITCHED)
                out.append(
                    (
                        number,
                        f"{head}: the model switch never reached the wire: its first request"
                        f" ({first.n}) sends {said}, as before",
                    )
                )
        elif turn.command == "plan_mode" and not _plan_told(before[-1], first, text):
            out.append(
                (
                    number,
                    f"{head}: the model was never told of plan mode: its first request"
                    f" ({first.n}) says 'plan' nowhere the request before did not",
                )
            )
    return out


def _user_texts(entry: dict[str, Any]) -> list[str]:
    return list(parse_request(entry["shape"], entry["body"]).user_texts)


def changes_shortfalls(
    run: ProbeRun, session: SessionRun, sent: list[Sent], where: str
) -> list[tuple[Need, int | None, str]]:
    """Each change the scenario meant that the run did not make where the harness could see it,
    as (need, turn, reason)."""
    out: list[tuple[Need, int | None, str]] = []
    if any(t.edit_instructions for t in run.scenario.turns) and run.profile.instructions_file:
        out += [("edit", turn, why) for turn, why in _edit(run, session, where)]
    if run.scenario.mcp_tools and run.profile.mcp is not None:
        out += [("mcp", turn, why) for turn, why in _mcp(run, session, where)]
    if run.scenario.commands():
        out += [("command", turn, why) for turn, why in _commands(run, session, sent, where)]
    return out


__all__ = [
    "answered",
    "changes_shortfalls",
    "compaction",
    "compaction_end",
    "compaction_requests",
    "edit_marks",
    "era_starts",
    "eras",
    "first_of_turn",
    "holds",
    "needle",
    "turn_text",
]
