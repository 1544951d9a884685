"""Whether a run did what its scenario meant, read after the run: a check that needed what did
not happen is an `error` with the reason, never a verdict on what little was left.

What a scenario means follows from its data: every turn the harness plays sends a request for
each of its steps (a killed turn, for its first: the call), each carrying the turn's message;
each turn falls on the day its clock says in the harness's clock; each later turn of a per-turn
harness resumes the session (its first request holds an earlier message); the kill lands while
the call's command runs; and the mock refused no request.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxconf.terminal.controls import visible_controls

from ..clock import clock_misses
from ..events import command_message
from ..harness import ProbeRun, ProcessRun, SessionRun
from .changes import changes_shortfalls
from .model import Need, Sent, _count
from .unsent import mock_url_hint

QUOTE_CHARS = 200


@dataclass(frozen=True)
class Shortfall:
    """One thing the scenario meant that the run did not do."""

    need: Need
    turn: int | None  # from 0
    reason: str


def ended(process: ProcessRun) -> str:
    """How a process ended, with the last line of its standard error."""
    if process.exit_code is None and not process.timed_out and not process.killed:
        return visible_controls(process.stderr.strip()[:QUOTE_CHARS]) or "it did not start"
    if process.interrupted:
        what = "was ended by the probe when the run was interrupted"
    elif process.timed_out:
        what = "timed out"
    elif process.killed:
        what = "was killed by the probe"
    else:
        what = f"exited {process.exit_code}"
    lines = process.stderr.strip().splitlines()
    tail = f", stderr: {visible_controls(lines[-1][:QUOTE_CHARS])}" if lines else ""
    return f"the process {what} after {process.seconds:g} s{tail}"


def _process_of_turn(session: SessionRun, turn: int) -> int | None:
    return next((n for n, p in enumerate(session.processes) if turn in p.turns), None)


def _wanted_steps(run: ProbeRun, turn: int) -> list[int]:
    first = run.scenario.first_step_of_turn(turn)
    if run.scenario.turns[turn].kill_after_call_s is not None:
        return [first]  # the rest of a killed turn never comes, by design
    return list(range(first, first + len(run.scenario.turns[turn].steps)))


def played_turns(run: ProbeRun) -> list[int]:
    return [0] if run.profile.plays_one_turn else list(range(len(run.scenario.turns)))


def _ending(process: ProcessRun) -> tuple[object, ...]:
    """What tells one way of ending from another, the seconds aside: two turns that ended alike
    are one cause."""
    lines = process.stderr.strip().splitlines()
    return (process.exit_code, process.timed_out, process.killed, lines[-1] if lines else "")


def _numbers(turns: list[int]) -> str:
    shown = [str(t + 1) for t in turns]
    if len(shown) == 1:
        return f"turn {shown[0]}"
    return f"turns {', '.join(shown[:-1])} and {shown[-1]}"


@dataclass
class _Silent:
    """Turns in a row that sent nothing, each ending the same way: one shortfall."""

    turns: list[int]
    what: str  # "sent no request", "was never played"
    why: str
    ending: tuple[object, ...]
    hint: str = ""  # what may be behind it, after the turns folded in

    def reason(self, where: str) -> str:
        what, alike = self.what, ""
        if len(self.turns) > 1:
            what = what.replace("was ", "were ")
            if self.ending != ("setup",):  # one setup failed for all of them: no more to say
                alike = f" ({_numbers(self.turns[1:])} ended the same way)"
        return f"{where}{_numbers(self.turns)} {what}: {self.why}{alike}{self.hint}"


def _api_refusal(session: SessionRun, number: int) -> str:
    """What the API answered the first request of process `number` it refused, if any: why a
    harness that cannot go on after a 400 stopped."""
    process = session.processes[number]
    refused = next(
        (
            e
            for e in session.entries
            if e.get("kind") == "api-error"
            and process.first_request < int(e.get("n", 0)) <= process.last_request
        ),
        None,
    )
    if refused is None:
        return ""
    message = visible_controls(str(refused.get("refused", ""))[:QUOTE_CHARS])
    return f"; the API refused its request {refused['n']}: {message}"


def _turns(
    run: ProbeRun, session: SessionRun, sent: list[Sent], where: str, anew: set[int]
) -> list[Shortfall]:
    """`anew`: the turns whose resume started a new session, which the mock then played from
    the scenario's first step. Turns in a row that sent nothing and ended the same way are one
    shortfall, named once."""
    out: list[Shortfall | _Silent] = []
    # A harness without tools, or one fed a script of its own, cannot be placed step by step.
    by_step = any(s.step is not None for s in sent) and not run.profile.drive.script
    setup = next((p for p in session.processes if p.setup), None)

    def silent(turn: int, what: str, why: str, ending: tuple[object, ...], hint: str = "") -> None:
        last = out[-1] if out else None
        if isinstance(last, _Silent) and (last.what, last.ending) == (what, ending):
            last.turns.append(turn)
        else:
            out.append(_Silent([turn], what, why, ending, hint))

    for turn in played_turns(run):
        number = _process_of_turn(session, turn)
        if number is None:
            why = f"the setup command failed: {ended(setup)}" if setup is not None else ""
            silent(turn, "was never played", why, ("setup",))
            continue
        process = session.processes[number]
        own = [s for s in sent if s.process == number]
        if not own:
            if by_step and run.scenario.turns[turn].command == "compact":
                continue  # its one request, the compaction's, is the command need's to find
            hint = mock_url_hint(run, session, process)
            why = ended(process) + _api_refusal(session, number)
            silent(turn, "sent no request", why, _ending(process), hint)
            continue
        if not by_step:
            continue
        if run.scenario.turns[turn].command == "compact":
            continue  # its one request, the compaction's, is the command need's to find
        user = command_message(run.profile, run.scenario.turns[turn])
        wanted = _wanted_steps(run, turn)
        got = {
            s.step
            for s in own
            if s.step in wanted and any(user in text for text in s.request.user_texts)
        }
        if len(got) == len(wanted):
            continue
        why = ended(process) + _api_refusal(session, number)
        if turn in anew:
            why = "its resume started a new session, which the mock played from the first step"
        if not got:
            what = "sent no request" if not own else f"sent none of its {len(wanted)} requests"
        else:
            what = f"sent {len(got)} of its {_count(len(wanted), 'request')}"
        out.append(Shortfall("turns", turn, f"{where}turn {turn + 1} {what}: {why}"))
    return [
        Shortfall("turns", f.turns[0], f.reason(where)) if isinstance(f, _Silent) else f
        for f in out
    ]


def _clock(run: ProbeRun, session: SessionRun, where: str) -> list[Shortfall]:
    if run.clock_problem is not None:
        return []
    out = []
    tries = session.margins
    after = (
        f" ({len(tries)} tries, starting {', '.join(f'{m:g}' for m in tries)} s before midnight)"
        if len(tries) > 1
        else ""
    )
    for miss in clock_misses(run.scenario, session):
        side = "after" if miss.late else "before"
        out.append(
            Shortfall(
                "clock",
                miss.turn,
                f"{where}turn {miss.turn + 1} ran {side} midnight in the harness's clock: its"
                f" request {miss.request} came {miss.after_start:g} s after its process started"
                f" at {miss.started:%H:%M:%S}{after}",
            )
        )
    return out


def _resumes(run: ProbeRun, session: SessionRun, sent: list[Sent], where: str) -> list[Shortfall]:
    if run.profile.drive.mode != "per-turn":
        return []
    out = []
    for turn in played_turns(run)[1:]:
        number = _process_of_turn(session, turn)
        first = next((s for s in sent if s.process == number), None)
        if first is None:
            continue  # it sent nothing: the turns' shortfall says so
        earlier = [command_message(run.profile, t) for t in run.scenario.turns[:turn]]
        if turn > (run.scenario.compact_turn() or len(run.scenario.turns)):
            continue  # after a compaction the history starts over from its summary
        if not any(user in text for user in earlier for text in first.request.user_texts):
            out.append(
                Shortfall(
                    "resume",
                    turn,
                    f"{where}the resume of turn {turn + 1} started a new session: its first"
                    f" request ({first.n}) holds none of the earlier user messages",
                )
            )
    return out


def _kill(run: ProbeRun, session: SessionRun, where: str) -> list[Shortfall]:
    turn = run.scenario.killed_turn()
    if turn is None or run.profile.drive.mode != "per-turn":
        return []
    number = _process_of_turn(session, turn)
    if number is None:
        return []
    process = session.processes[number]
    kill = process.kill
    head = f"{where}the kill did not land inside turn {turn + 1}'s call"
    if kill is None:
        return [
            Shortfall("kill", turn, f"{head}: the turn ended before it came ({ended(process)})")
        ]
    if not kill.running:
        return [
            Shortfall(
                "kill",
                turn,
                f"{head}: no process of the harness was running {kill.command!r} when it came",
            )
        ]
    if process.not_ended:
        left = ", ".join(process.not_ended[:3])
        return [Shortfall("kill", turn, f"{head}: processes outlived it: {left}")]
    return []


def _refused(session: SessionRun, where: str) -> list[Shortfall]:
    return [
        Shortfall(
            "bodies",
            None,
            f"{where}request {e.get('n')} was refused (HTTP {e.get('status')}): {e.get('reason')}",
        )
        for e in session.entries
        if e.get("kind") == "refused"
    ]


def _cut(session: SessionRun) -> int:
    """The first turn an interruption left unplayed in `session`: the one whose process it
    ended, else the one after the last played."""
    ended_turns = [min(p.turns) for p in session.processes if p.interrupted and p.turns]
    if ended_turns:
        return ended_turns[0]
    played = [t for p in session.processes for t in p.turns]
    return max(played) + 1 if played else 0


def _interruption(run: ProbeRun, session: SessionRun | None, where: str) -> Shortfall:
    """What the interruption left unplayed, as one shortfall that every check needs."""
    name = run.interrupted
    turns = played_turns(run)
    cut = _cut(session) if session is not None else 0
    under_way = [p for p in (session.processes if session else []) if p.interrupted and p.turns]
    if under_way:
        head = f"interrupted by {name} in {_numbers(under_way[0].turns)}"
    elif cut < len(turns):
        head = f"interrupted by {name} before turn {cut + 1}"
    else:
        head = f"interrupted by {name} after session {len(run.sessions)}"
    left = [f"{_numbers(turns[cut:])} not played to the end"] if cut < len(turns) else []
    later = len(run.scenario.sessions) - max(len(run.sessions), 1)  # those after this one
    if later:
        left.append(f"{_count(later, 'later session')} not played")
    detail = "; ".join(left) or "nothing left to play"
    return Shortfall("turns", cut if cut < len(turns) else None, f"{where}{head}: {detail}")


def shortfalls(run: ProbeRun, sessions: list[list[Sent]]) -> list[Shortfall]:
    """Everything the scenario meant that the run did not do, session by session. An
    interrupted session is judged up to the turn the interruption came in, which with the
    turns after it is one shortfall of its own."""
    out: list[Shortfall] = []
    if run.not_played:
        return []
    if run.not_installed:
        return [Shortfall("turns", None, f"not installed: {run.not_installed}")]
    for index, (session, sent) in enumerate(zip(run.sessions, sessions, strict=True)):
        where = f"session {index + 1}: " if len(run.sessions) > 1 else ""
        resumes = _resumes(run, session, sent, where)
        anew = {f.turn for f in resumes if f.turn is not None}
        found = _refused(session, where)
        found += resumes
        found += _turns(run, session, sent, where, anew)
        found += _clock(run, session, where)
        found += _kill(run, session, where)
        found += [
            Shortfall(need, turn, why)
            for need, turn, why in changes_shortfalls(run, session, sent, where)
        ]
        if run.interrupted and index == len(run.sessions) - 1:
            cut = _cut(session)
            found = [
                f for f in found if f.need == "bodies" or (f.turn is not None and f.turn < cut)
            ]
            found.append(_interruption(run, session, where))
        out += found
    if run.interrupted and not run.sessions:
        out.append(_interruption(run, None, ""))
    return out


__all__ = ["Shortfall", "ended", "played_turns", "shortfalls"]
