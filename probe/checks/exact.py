"""The exact checks: what must hold byte for byte in the requests a harness sends."""

from __future__ import annotations

import hashlib
from datetime import date
from itertools import pairwise

from ..harness import ProbeRun
from .model import CheckDef, CheckResult, Sent, _count, _result


def _sha(text: str | None) -> str:
    return hashlib.sha256((text or "").encode()).hexdigest()[:12]


def _date_forms(day: date) -> list[str]:
    """How harnesses write a date: ISO, US and European orders, with or without weekday."""
    return [
        day.isoformat(),
        day.strftime("%Y/%m/%d"),
        day.strftime("%B %d, %Y").replace(" 0", " "),
        day.strftime("%b %d %Y"),
        day.strftime("%d %B %Y").lstrip("0"),
        f"{day.month}/{day.day}/{day.year}",
    ]


def _has_date(text: str, day: date) -> str | None:
    return next((form for form in _date_forms(day) if form in text), None)


def system_once(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    per_session = [sorted({s.request.system or "" for s in sent}, key=len) for sent in sessions]
    counts = [len(p) for p in per_session]
    figures = {
        "prompts_per_session": counts,
        "sizes": [[len(t) for t in p] for p in per_session],
        "sha256": [[_sha(t) for t in p] for p in per_session],
    }
    if all(c == 1 for c in counts):
        return _result(
            check,
            "pass",
            f"one system prompt per session, resent byte for byte ({len(per_session[0][0])} chars)",
            **figures,
        )
    worst = max(counts)
    return _result(check, "fail", f"{worst} different system prompts in one session", **figures)


def tools_fixed(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    lists = [sorted({s.request.canonical_tools() for s in sent}) for sent in sessions]
    names = [[t.name for t in sent[0].request.tools] for sent in sessions]
    counts = [len(x) for x in lists]
    figures = {"tool_lists_per_session": counts, "tools": names[0]}
    if all(c == 1 for c in counts):
        return _result(
            check, "pass", f"one tool list per session ({_count(len(names[0]), 'tool')})", **figures
        )
    return _result(check, "fail", f"{max(counts)} different tool lists in one session", **figures)


def _first_difference(before: list[str], after: list[str]) -> int | None:
    for index, message in enumerate(before):
        if index >= len(after) or after[index] != message:
            return index
    return None


def history_prefix(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    breaks = []
    pairs = 0
    for session, sent in zip(run.sessions, sessions, strict=False):
        killed = {n for n, p in enumerate(session.processes) if p.killed}
        for before, after in pairwise(sent):
            if before.process in killed and after.process != before.process:
                continue  # a resume after a crash: the history checks judge what it may drop
            pairs += 1
            index = _first_difference(
                before.request.canonical_messages(), after.request.canonical_messages()
            )
            if index is not None:
                across = before.process != after.process
                breaks.append({"request": after.n, "message": index, "across_resume": across})
    if not pairs:
        return _result(check, "not-testable", "fewer than two requests with tools in a session")
    if not breaks:
        return _result(
            check,
            "pass",
            f"every request starts with the previous one's messages ({_count(pairs, 'pair')})",
            pairs=pairs,
        )
    first = breaks[0]
    where = " across a resume" if first["across_resume"] else ""
    return _result(
        check,
        "fail",
        f"request {first['request']} rewrote message {first['message']} of the previous"
        f" request{where} ({len(breaks)} of {_count(pairs, 'pair')})",
        pairs=pairs,
        breaks=breaks[:10],
    )


def no_clock(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    days = [s.clock.date() for s in run.sessions if s.clock is not None]
    if len(set(days)) >= 2:
        if run.clock_problem:
            return _result(check, "not-testable", run.clock_problem)
        firsts = [sent[0].request.system or "" for sent in sessions if sent]
        if len(firsts) < 2:
            return _result(check, "error", "a session of the two days sent no request with tools")
        figures = {"days": [d.isoformat() for d in days], "sha256": [_sha(t) for t in firsts]}
        if len(set(firsts)) == 1:
            return _result(
                check,
                "pass",
                f"the system prompts of {days[0]} and {days[1]} are the same text",
                **figures,
            )
        index = _first_difference(firsts[0].splitlines(), firsts[1].splitlines()) or 0
        line = (firsts[1].splitlines() or [""])[min(index, len(firsts[1].splitlines()) - 1)]
        return _result(
            check,
            "fail",
            f"the system prompts of two days differ: {line.strip()[:120]!r}",
            line=index + 1,
            **figures,
        )
    found = []
    for session, sent in zip(run.sessions, sessions, strict=False):
        moved = session.clock if run.clock_problem is None else None
        day = (moved or run.started).date()
        for text in {s.request.system or "" for s in sent}:
            form = _has_date(text, day)
            if form:
                found.append(form)
    if found:
        return _result(
            check,
            "fail",
            f"the date of the run is in the system prompt ({found[0]!r})",
            dates=sorted(set(found)),
        )
    return _result(
        check,
        "pass",
        "no date of the run in the system prompt",
    )


def date_note(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    scenario = run.scenario
    moved = [(n, t) for n, t in enumerate(scenario.turns) if n and t.clock is not None]
    if not moved or run.sessions[0].clock is None:
        return _result(check, "not-testable", "the scenario does not move the clock past midnight")
    if run.clock_problem:
        return _result(check, "not-testable", run.clock_problem)
    number, turn = moved[0]
    assert turn.clock is not None
    first_step = scenario.first_step_of_turn(number)
    sent = sessions[0]
    if all(s.step is None for s in sent):
        return _result(
            check,
            "not-testable",
            "the harness offers no tools, so its requests cannot be placed in the scenario's turns",
        )
    if run.profile.plays_one_turn:
        return _result(
            check,
            "not-testable",
            "the harness plays one task per run: there is no turn after midnight",
        )
    after = [s for s in sent if s.step is not None and s.step >= first_step]
    before = [s for s in sent if s.step is not None and s.step < first_step]
    if not after or not before:
        return _result(check, "error", "no request with tools on both sides of midnight")
    old, new = before[-1].request, after[0].request
    problems = []
    if new.system != old.system:
        told = " (it holds the new date)" if _has_date(new.system or "", turn.clock.date()) else ""
        problems.append("the system prompt was remade" + told)
    index = _first_difference(old.canonical_messages(), new.canonical_messages())
    if index is not None:
        problems.append(f"message {index} already sent was rewritten")
    form = _has_date(new.last_user_text, turn.clock.date())
    if not form:
        problems.append("the next user message does not carry the new date")
    if problems:
        return _result(check, "fail", "; ".join(problems), new_date=turn.clock.date().isoformat())
    return _result(
        check,
        "pass",
        f"the new date ({form}) rides on the next user message; nothing sent was changed",
    )
