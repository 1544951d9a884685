"""The checks on the recorded requests, each tied to the rule anchor it sees on the wire.

Exact checks pass or fail. Behaviours are reported with figures (verdict "info"), since no real
harness writes the spec's own texts: what an unchanged re-read becomes, what a 50,000-line
output becomes, whether results carry ids. A check that the scenario or the harness cannot
exercise says "not-testable" and why; a run that sent no request it could judge is "error".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..events import command_message, unsupported
from ..harness import ProbeRun
from .behaviours import long_output, reread, result_ids
from .compaction import compact_after, compact_turn
from .dated import date_note, no_clock
from .exact import history_prefix, system_once
from .history import cold_equals_live, no_half_turn, truncate
from .instructions import instructions_note
from .markers import cache_markers
from .mcp import mcp_tools
from .measured import Shortfall, shortfalls
from .model import EVERY_RUN, CheckDef, CheckResult, Need, _result, aside_note, split_requests
from .params import params_stable
from .reasoning import back, idle, kept, long_pause, refused, shape_is
from .tools import tools_fixed
from .usage import usage_shown

# The scenario's mid-session changes: a check of the prefix is only as strong as the change the
# harness saw (the edit, the late tools, the command).
CHANGED: frozenset[Need] = frozenset({"edit", "mcp", "command"})
CLOCKED: frozenset[Need] = EVERY_RUN | CHANGED | {"clock"}
RESUMED: frozenset[Need] = CLOCKED | {"resume"}
CRASHED: frozenset[Need] = EVERY_RUN | {"resume", "kill"}


def _two_days(run: ProbeRun) -> str | None:
    days = {s.date() for s in run.scenario.sessions if s is not None}
    return run.clock_problem if len(days) >= 2 else None


def _midnight(run: ProbeRun) -> str | None:
    if not any(n and t.clock for n, t in enumerate(run.scenario.turns)):
        return "the scenario does not move the clock past midnight"
    if run.scenario.sessions[0] is None:
        return "the scenario does not move the clock past midnight"
    if run.clock_problem:
        return run.clock_problem
    if run.profile.plays_one_turn:
        return "the harness plays one task per run: there is no turn after midnight"
    return None


def _crash(run: ProbeRun) -> str | None:
    if run.scenario.killed_turn() is None:
        return "the scenario interrupts no call"
    if run.profile.drive.mode != "per-turn":
        return "the harness plays every turn in one process: its profile has no resume command"
    return None


def _usage(run: ProbeRun) -> str | None:
    if run.profile.usage_output is None:
        return "the profile names no place where the harness shows cached tokens"
    return None


def _edited(run: ProbeRun) -> str | None:
    if not any(t.edit_instructions for t in run.scenario.turns):
        return "the scenario edits no instruction file"
    return None


def _late_mcp(run: ProbeRun) -> str | None:
    return None if run.scenario.mcp_tools else "the scenario connects no MCP server"


def _compacted(run: ProbeRun) -> str | None:
    return None if run.scenario.compact_turn() is not None else "the scenario makes no compaction"


def _labelled(*labels: str) -> Callable[[ProbeRun], str | None]:
    def applies(run: ProbeRun) -> str | None:
        have = {s.label for s in run.scenario.steps()}
        missing = [label for label in labels if label not in have]
        return f"the scenario has no step labelled {missing[0]!r}" if missing else None

    return applies


CHECKS: tuple[CheckDef, ...] = (
    CheckDef(
        "system-once",
        "pfx.system.once",
        "exact",
        "one system prompt per session",
        system_once,
        tells_aside=True,
        needs=CLOCKED,
    ),
    CheckDef(
        "no-clock",
        "pfx.system.no-clock",
        "exact",
        "no date in the system prompt",
        no_clock,
        needs=CLOCKED,
        applies=_two_days,
    ),
    CheckDef(
        "tools-fixed",
        "pfx.tools.fixed",
        "exact",
        "a fixed tool list",
        tools_fixed,
        tells_aside=True,
        needs=CLOCKED,
    ),
    CheckDef(
        "history-prefix",
        "pfx.note.stored",
        "exact",
        "nothing sent is rewritten",
        history_prefix,
        needs=RESUMED,
    ),
    CheckDef(
        "date-note",
        "pfx.note.date",
        "exact",
        "the new date as a note",
        date_note,
        needs=RESUMED,
        applies=_midnight,
    ),
    CheckDef(
        "usage-shown",
        "pfx.usage.shown",
        "exact",
        "cached tokens shown",
        usage_shown,
        applies=_usage,
    ),
    CheckDef(
        "cache-markers",
        "pfx.cache.marks",
        "exact",
        "caching declared",
        cache_markers,
        fails_when_short=True,
        judges_refusals=True,
    ),
    CheckDef(
        "params-stable",
        "pfx.cache.params",
        "exact",
        "cache parameters kept",
        params_stable,
        needs=EVERY_RUN | {"command"},
    ),
    CheckDef(
        "instructions-note",
        "pfx.note.file",
        "exact",
        "an edited instruction file told as a note",
        instructions_note,
        needs=RESUMED | {"edit"},
        applies=_edited,
    ),
    CheckDef(
        "mcp-tools",
        "pfx.tools.fixed",
        "exact",
        "late and reordered MCP tools change no request",
        mcp_tools,
        needs=RESUMED | {"mcp"},
        applies=_late_mcp,
    ),
    CheckDef(
        "compact-turn",
        "pfx.compact.turn",
        "exact",
        "the summary asked for as the next turn",
        compact_turn,
        needs=EVERY_RUN | {"command"},
        applies=_compacted,
    ),
    CheckDef(
        "compact-after",
        "pfx.compact.after",
        "exact",
        "the history starts over from the summary",
        compact_after,
        needs=EVERY_RUN | {"command"},
        applies=_compacted,
    ),
    CheckDef(
        "no-half-turn",
        "hist.persist.no-half-turn",
        "exact",
        "no call without its result after a crash",
        no_half_turn,
        needs=CRASHED,
        applies=_crash,
        fails_when_short=True,  # the API refused what it fails on: the turn could not go on
    ),
    CheckDef(
        "cold-equals-live",
        "hist.persist.cold-equals-live",
        "exact",
        "a resumed session sends what the live one did",
        cold_equals_live,
        needs=CRASHED,
        applies=_crash,
    ),
    *(
        CheckDef(
            f"reasoning-{name}",
            f"pfx.reasoning.{name}",
            "exact",
            f"{title} sent back as it came",
            back,
            applies=shape_is(api),
            fails_when_short=True,  # a body refused for its reasoning is what it fails on
            judges_refusals=True,
        )
        for name, api, title in (
            ("anthropic", "anthropic", "thinking"),
            ("responses", "openai-responses", "reasoning items"),
            ("gemini", "gemini", "thought signatures"),
            ("chat", "openai-chat", "reasoning_content"),
        )
    ),
    CheckDef(
        "reasoning-kept",
        "pfx.reasoning.kept",
        "exact",
        "earlier reasoning never stripped",
        kept,
        needs=RESUMED,
        fails_when_short=True,
        judges_refusals=True,
    ),
    CheckDef(
        "reasoning-idle",
        "pfx.reasoning.idle",
        "exact",
        "a pause strips no reasoning",
        idle,
        needs=RESUMED,
        applies=long_pause,
    ),
    CheckDef(
        "reasoning-refused",
        "pfx.reasoning.anthropic",
        "exact",
        "a refused request not sent again unchanged",
        refused,
        fails_when_short=True,
        stands_when_short=frozenset({"fail", "info"}),  # giving up is why the turn fell short
        judges_refusals=True,
    ),
    CheckDef(
        "reread",
        "ctx.stub.unchanged",
        "behaviour",
        "an unchanged re-read",
        reread,
        applies=_labelled("read", "reread"),
    ),
    CheckDef(
        "long-output",
        "ctx.cap.head-tail",
        "behaviour",
        "a 50,000-line output",
        long_output,
        applies=_labelled("long-output"),
    ),
    CheckDef(
        "result-ids",
        "ctx.id.bracket",
        "behaviour",
        "results carry ids",
        result_ids,
    ),
    CheckDef(
        "truncate",
        "hist.persist.truncate",
        "behaviour",
        "the call a crash interrupted",
        truncate,
        needs=CRASHED,
        applies=_crash,
    ),
)


@dataclass(frozen=True)
class Judgement:
    """Every check's result, and what the run did not do that its scenario meant."""

    checks: list[CheckResult]
    shortfalls: list[Shortfall]


def _short(check: CheckDef, missing: list[Shortfall], falls: list[Shortfall]) -> CheckResult:
    """The check's error for what the run did not do; `causes` numbers each shortfall (from 1,
    in `falls`), so that one said once is referred to rather than repeated."""
    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    causes = [falls.index(f) + 1 for f in missing]
    return _result(check, "error", missing[0].reason + more, shortfalls=len(missing), causes=causes)


def _refusals(run: ProbeRun) -> list[dict[str, Any]]:
    """The requests the provider refused, as the mock logged them."""
    return [e for s in run.sessions for e in s.entries if e.get("kind") == "api-error"]


def _nothing_answered(refused: list[dict[str, Any]]) -> str:
    if not refused:
        return "no request with tools reached the mock"
    first = refused[0]
    why = str(first.get("refused") or "refused by the API")
    return (
        f"the provider refused every request the harness sent ({len(refused)}); "
        f"request {first.get('n')}: {why}"
    )


def judge_run(run: ProbeRun) -> Judgement:
    refused = _refusals(run)
    # What the person types, and the turn's text a command wraps (a harness may send either).
    said = [command_message(run.profile, turn) for turn in run.scenario.turns]
    said += [turn.user for turn in run.scenario.turns]
    splits = [split_requests(s, said) for s in run.sessions]
    sessions = [sent for sent, _ in splits]
    aside = sum(count for _, count in splits)
    falls = shortfalls(run, sessions)
    # What the profile cannot make happen: the checks that need it have nothing to judge.
    cannot = unsupported(run.profile, run.scenario)
    results = []
    for check in CHECKS:
        why = check.applies(run) if check.applies else None
        if why is None and run.not_played:
            why = f"not played: {run.not_played}"
        if why is None:
            why = next((cannot[n] for n in sorted(check.needs) if n in cannot), None)
        missing = [f for f in falls if f.need in check.needs]
        if why is not None:
            result = _result(check, "not-testable", why)
        elif missing and not check.fails_when_short:
            result = _short(check, missing, falls)
        elif not any(sessions) and not (refused and check.judges_refusals):
            unsent = [f for f in falls if f.need == "turns"]
            result = (
                _short(check, unsent, falls)
                if unsent
                else _result(check, "error", _nothing_answered(refused))
            )
        else:
            try:
                result = check.judge(check, run, sessions)
            except (IndexError, KeyError, ValueError, TypeError) as e:
                # A request shaped unlike anything seen is this check's error, not the run's end.
                result = _result(check, "error", f"cannot judge: {type(e).__name__}: {e}")
            if missing and result.verdict not in check.stands_when_short:
                result = _short(check, missing, falls)
        if check.tells_aside and result.verdict == "pass":
            result = replace(result, summary=result.summary + aside_note(aside))
        results.append(result)
    return Judgement(results, falls)


def judge(run: ProbeRun) -> list[CheckResult]:
    return judge_run(run).checks


__all__ = [
    "CHECKS",
    "CheckDef",
    "CheckResult",
    "Judgement",
    "Shortfall",
    "judge",
    "judge_run",
    "split_requests",
]
