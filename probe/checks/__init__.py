"""The checks on the recorded requests, each tied to the rule anchor it sees on the wire.

Exact checks pass or fail. Behaviours are reported with figures (verdict "info"), since no real
harness writes the spec's own texts: what an unchanged re-read becomes, what a 50,000-line
output becomes, whether results carry ids. A check that the scenario or the harness cannot
exercise says "not-testable" and why; a run that sent no request it could judge is "error".
"""

from __future__ import annotations

from dataclasses import replace

from ..harness import ProbeRun, ProcessRun
from .behaviours import long_output, reread, result_ids
from .exact import date_note, history_prefix, no_clock, system_once, tools_fixed
from .history import cold_equals_live, no_half_turn, truncate
from .markers import cache_markers
from .model import CheckDef, CheckResult, _result, aside_note, split_requests
from .params import params_stable
from .usage import usage_shown


def _trouble(process: ProcessRun) -> str:
    if process.timed_out:
        what = "timed out"
    elif process.exit_code is None:
        what = "did not start"
    else:
        what = f"exited {process.exit_code}"
    lines = process.stderr.strip().splitlines()
    return f"{process.argv[0]} {what}" + (f": {lines[-1][:200]}" if lines else "")


def _no_requests(check: CheckDef, run: ProbeRun) -> CheckResult:
    processes = [p for s in run.sessions for p in s.processes]
    trouble = [p for p in processes if p.timed_out or p.exit_code != 0]
    why = "; ".join(_trouble(p) for p in trouble[:2])
    summary = "no request with tools reached the mock" + (f" ({why})" if why else "")
    return _result(check, "error", summary)


CHECKS: tuple[CheckDef, ...] = (
    CheckDef(
        "system-once",
        "pfx.system.once",
        "exact",
        "one system prompt per session",
        system_once,
        tells_aside=True,
    ),
    CheckDef(
        "no-clock",
        "pfx.system.no-clock",
        "exact",
        "no date in the system prompt",
        no_clock,
    ),
    CheckDef(
        "tools-fixed",
        "pfx.tools.fixed",
        "exact",
        "a fixed tool list",
        tools_fixed,
        tells_aside=True,
    ),
    CheckDef(
        "history-prefix",
        "pfx.note.stored",
        "exact",
        "nothing sent is rewritten",
        history_prefix,
    ),
    CheckDef(
        "date-note",
        "pfx.note.date",
        "exact",
        "the new date as a note",
        date_note,
    ),
    CheckDef(
        "usage-shown",
        "pfx.usage.shown",
        "exact",
        "cached tokens shown",
        usage_shown,
    ),
    CheckDef("cache-markers", "pfx.system.once", "exact", "caching declared", cache_markers),
    CheckDef("params-stable", "pfx.system.switch", "exact", "cache parameters kept", params_stable),
    CheckDef(
        "no-half-turn",
        "hist.persist.no-half-turn",
        "exact",
        "no call without its result after a crash",
        no_half_turn,
    ),
    CheckDef(
        "cold-equals-live",
        "hist.persist.cold-equals-live",
        "exact",
        "a resumed session sends what the live one did",
        cold_equals_live,
    ),
    CheckDef(
        "reread",
        "ctx.stub.unchanged",
        "behaviour",
        "an unchanged re-read",
        reread,
    ),
    CheckDef(
        "long-output",
        "ctx.cap.head-tail",
        "behaviour",
        "a 50,000-line output",
        long_output,
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
    ),
)


def judge(run: ProbeRun) -> list[CheckResult]:
    said = [turn.user for turn in run.scenario.turns]
    splits = [split_requests(s, said) for s in run.sessions]
    sessions = [sent for sent, _ in splits]
    aside = sum(count for _, count in splits)
    results = []
    for check in CHECKS:
        if not any(sessions):
            results.append(_no_requests(check, run))
            continue
        try:
            result = check.judge(check, run, sessions)
        except (IndexError, KeyError, ValueError, TypeError) as e:
            # A request shaped unlike anything seen is this check's error, not the run's end.
            result = _result(check, "error", f"cannot judge: {type(e).__name__}: {e}")
        if check.tells_aside and result.verdict == "pass":
            result = replace(result, summary=result.summary + aside_note(aside))
        results.append(result)
    return results


__all__ = ["CHECKS", "CheckDef", "CheckResult", "judge", "split_requests"]
