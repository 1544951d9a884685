"""The clock checks: no date of the run in what a session makes once (its system prompt and every
tool's description), and the new date told as a note on the next message after midnight."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timezone

from ctxconf.shapes.wire import Request, text_of_message

from ..harness import ProbeRun, SessionRun
from .dates import find_date
from .exact import _first_difference, _sha
from .model import CheckDef, CheckResult, Sent, _count, _result
from .tools import tool_change


def run_days(run: ProbeRun, session: SessionRun) -> list[date]:
    """The days a session's harness lived in: those of its moved clock, or of the real one (in
    local time and in UTC, which a harness may write instead)."""
    if session.clock is not None and run.clock_problem is None:
        days = {session.clock.date()}
        days.update(t.clock.date() for t in run.scenario.turns if t.clock is not None)
        days.update(p.clock_at_end.date() for p in session.processes if p.clock_at_end)
        return sorted(days)
    moments = (run.started, run.finished)
    return sorted(
        {m.date() for m in moments} | {m.astimezone(timezone.utc).date() for m in moments}
    )


def made_once(request: Request) -> Iterator[tuple[str, str]]:
    """The parts of a request a session makes once, each with how to name it."""
    yield "the system prompt", request.system or ""
    for tool in request.tools:
        yield f"the description of `{tool.name}`", tool.description


def _dates_found(run: ProbeRun, sessions: list[list[Sent]]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for session, sent in zip(run.sessions, sessions, strict=False):
        days = run_days(run, session)
        seen: set[tuple[str, str]] = set()
        for s in sent:
            for where, text in made_once(s.request):
                if (where, text) in seen:
                    continue
                seen.add((where, text))
                form = find_date(text, days)
                if form:
                    found.append((where, form))
    return found


def _days_apart(firsts: list[Request]) -> str | None:
    """How the first requests of two days differ in what is made once, or None."""
    a, b = firsts[0], firsts[1]
    if a.system != b.system:
        old, new = (a.system or "").splitlines(), (b.system or "").splitlines()
        index = _first_difference(old, new) or 0
        line = new[min(index, len(new) - 1)] if new else ""
        return f"the system prompts of two days differ: {line.strip()[:120]!r}"
    change = tool_change(a.tools, b.tools)
    if change:
        what, how = change
        return f"{what} differs between the two days: {how}"
    return None


def no_clock(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    days = [s.clock.date() for s in run.sessions if s.clock is not None]
    found = _dates_found(run, sessions)
    figures: dict[str, object] = {"dates": sorted({form for _, form in found})}
    apart = None
    if len(set(days)) >= 2:
        firsts = [sent[0].request for sent in sessions if sent]
        figures["days"] = [d.isoformat() for d in days]
        figures["sha256"] = [_sha(r.system) for r in firsts]
        apart = _days_apart(firsts) if len(firsts) >= 2 else None
    if found:
        where = found[0][0]
        forms = sorted({form for place, form in found if place == where})
        shown = ", ".join(repr(form) for form in forms[:3])
        others = sorted({place for place, _ in found} - {where})
        more = f"; and in {others[0]}" if others else ""
        return _result(
            check, "fail", f"the date of the run is in {where} ({shown}){more}", **figures
        )
    if apart:
        return _result(check, "fail", apart, **figures)
    if len(set(days)) >= 2:
        return _result(
            check,
            "pass",
            f"the system prompts and tools of {days[0]} and {days[1]} are the same text",
            **figures,
        )
    return _result(
        check, "pass", "no date of the run in the system prompt or any tool's description"
    )


def _states_a_date(sent: list[Sent], days: list[date]) -> bool:
    for s in sent:
        texts = [text for _, text in made_once(s.request)]
        texts += [text_of_message(m) for m in s.request.messages]
        if any(find_date(text, days) for text in texts):
            return True
    return False


def date_note(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    scenario = run.scenario
    number, turn = next((n, t) for n, t in enumerate(scenario.turns) if n and t.clock)
    assert turn.clock is not None
    first_step = scenario.first_step_of_turn(number)
    sent = sessions[0]
    if all(s.step is None for s in sent):
        return _result(
            check,
            "not-testable",
            "the harness offers no tools, so its requests cannot be placed in the scenario's turns",
        )
    after = [s for s in sent if s.step is not None and s.step >= first_step]
    before = [s for s in sent if s.step is not None and s.step < first_step]
    if not after or not before:
        return _result(check, "error", "no request with tools on both sides of midnight")
    old, new = before[-1].request, after[0].request
    new_day = turn.clock.date()
    days = run_days(run, run.sessions[0])
    if not _states_a_date(sent, days):
        return _result(
            check,
            "not-testable",
            f"the harness never states a date: none of its {_count(len(sent), 'request')}"
            " holds a date of the run",
        )
    problems = []
    if new.system != old.system:
        told = " (it holds the new date)" if find_date(new.system or "", [new_day]) else ""
        problems.append("the system prompt was remade" + told)
    change = tool_change(old.tools, new.tools)
    if change:
        what, how = change
        dated = any(find_date(t.description, [new_day]) for t in new.tools)
        problems.append(f"{what} was remade: {how}" + (" (it holds the new date)" if dated else ""))
    index = _first_difference(old.canonical_messages(), new.canonical_messages())
    if index is not None:
        problems.append(f"message {index} already sent was rewritten")
    form = find_date(new.last_user_text, [new_day])
    if not form:
        problems.append("the next user message does not carry the new date")
    figures = {"new_date": new_day.isoformat(), "request": after[0].n}
    if problems:
        rides = f"; the new date ({form}) does ride on the next user message" if form else ""
        return _result(check, "fail", "; ".join(problems) + rides, **figures)
    return _result(
        check,
        "pass",
        f"the new date ({form}) rides on the next user message; nothing sent was changed",
        **figures,
    )


__all__ = ["date_note", "made_once", "no_clock", "run_days"]
