"""The exact checks: what must hold byte for byte in the requests a harness sends."""

from __future__ import annotations

import hashlib
from itertools import pairwise

from ..harness import ProbeRun
from .changes import compaction, compaction_end, eras
from .model import CheckDef, CheckResult, Sent, _count, _result


def _sha(text: str | None) -> str:
    return hashlib.sha256((text or "").encode()).hexdigest()[:12]


def system_once(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    # A compaction or a model switch the scenario asked for may make the prompt again: each
    # stretch between them is judged on its own.
    per_session = [
        sorted({s.request.system or "" for s in era}, key=len)
        for session, sent in zip(run.sessions, sessions, strict=False)
        for era in eras(run, session, sent)
    ]
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
        done, end = compaction(session), compaction_end(session)
        for before, after in pairwise(sent):
            if before.process in killed and after.process != before.process:
                continue  # a resume after a crash: the history checks judge what it may drop
            if done is not None and end is not None and before.n <= end and after.n > done["n"]:
                if after.n > end or before.n >= done["n"]:
                    continue  # the history starts over at the summary: judged from it on
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
