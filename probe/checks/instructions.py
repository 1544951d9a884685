"""The instruction-file check: an edit of the project's instruction file (AGENTS.md, CLAUDE.md,
GEMINI.md) made between turns, or while a resumed harness was stopped, reaches the model as a new
message (`pfx.note.file`), never as an edit of the system prompt or of a message already sent
(`pfx.system.once`, `pfx.system.load`): the first request after each edit must hold the new text
in a message the request before did not have.
"""

from __future__ import annotations

from typing import Any

from ctxconf.shapes.wire import text_of_message

from ..harness import ProbeRun
from .changes import edit_marks, needle
from .model import CheckDef, CheckResult, Sent, _count, _result


def _where(before: Sent | None, after: Sent, text: str) -> str:
    """Where the request after an edit holds its text: `system`, `old message N`, `new`, or
    `nowhere`."""
    line = text.strip().splitlines()[0]
    if line in (after.request.system or "") or needle(text) in after.request.canonical_tools():
        return "system"
    kept = len(before.request.messages) if before is not None else 0
    for index, message in enumerate(after.request.messages):
        if line in text_of_message(message):
            return "new" if index >= kept else f"message {index}"
    return "nowhere"


def instructions_note(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    name = run.profile.instructions_file or "the instruction file"
    told: list[dict[str, Any]] = []
    for session, sent in zip(run.sessions, sessions, strict=False):
        for turn, mark in sorted(edit_marks(run, session).items()):
            text = run.scenario.turns[turn].edit_instructions or ""
            after = next((s for s in sent if s.n > mark), None)
            if after is None:
                return _result(
                    check,
                    "error",
                    f"no request with tools came after the edit before turn {turn + 1}",
                )
            before = next((s for s in reversed(sent) if s.n <= mark), None)
            resumed = before is not None and before.process != after.process
            told.append(
                {
                    "turn": turn + 1,
                    "request": after.n,
                    "where": _where(before, after, text),
                    "across_resume": resumed,
                }
            )
    if not told:
        return _result(check, "error", f"{name} was never edited where a request could follow")
    wrong = [t for t in told if t["where"] != "new"]
    if not wrong:
        return _result(
            check,
            "pass",
            f"each edit of {name} came as a new message, the prompt kept"
            f" ({_count(len(told), 'edit')})",
            edits=told,
        )
    first = wrong[0]
    resume = " after the resume" if first["across_resume"] else ""
    how = {
        "system": "rewrote the system prompt (or the tools) with it",
        "nowhere": "never told the model of it",
    }.get(first["where"], f"rewrote {first['where']} with it")
    return _result(
        check,
        "fail",
        f"the edit of {name} before turn {first['turn']}: request {first['request']}{resume} {how}"
        f" ({len(wrong)} of {_count(len(told), 'edit')})",
        edits=told,
    )


__all__ = ["instructions_note"]
