"""The checks on the recorded requests, each tied to the rule anchor it sees on the wire.

Exact checks pass or fail. Behaviours are reported with figures (verdict "info"), since no real
harness writes the spec's own texts: what an unchanged re-read becomes, what a 50,000-line
output becomes, whether results carry ids. A check that the scenario or the harness cannot
exercise says "not-testable" and why; a run that sent no request it could judge is "error".
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from itertools import pairwise
from typing import Any, Literal

from ..harness import ProbeRun, ProcessRun, SessionRun
from ..wire import Request, ToolResult, parse_request, text_of_message

Verdict = Literal["pass", "fail", "info", "not-testable", "error"]
Kind = Literal["exact", "behaviour"]


@dataclass(frozen=True)
class CheckResult:
    id: str
    anchor: str
    kind: Kind
    verdict: Verdict
    summary: str  # one line
    figures: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Sent:
    """One recorded request with tools, and the process that sent it."""

    n: int
    request: Request
    process: int | None
    step: int | None
    cached: int


@dataclass(frozen=True)
class CheckDef:
    id: str
    anchor: str
    kind: Kind
    title: str
    judge: Callable[[CheckDef, ProbeRun, list[list[Sent]]], CheckResult]


def _process_of(n: int, processes: list[ProcessRun]) -> int | None:
    for number, process in enumerate(processes):
        if process.first_request < n <= process.last_request:
            return number
    return None


def sent_requests(session: SessionRun) -> list[Sent]:
    """The requests of the agent's loop: those with tools, or every answered request of a
    harness that offers no tools at all (aider)."""
    answered = []
    for entry in session.entries:
        if entry.get("kind") != "answer" or not isinstance(entry.get("body"), dict):
            continue
        stream = ":streamGenerateContent" in str(entry.get("path", ""))
        answered.append((entry, parse_request(entry["shape"], entry["body"], stream)))
    toolless = not any(request.tools for _, request in answered)
    out = []
    for entry, request in answered:
        if request.tools or toolless:
            cached = int(entry.get("usage", {}).get("cached", 0))
            out.append(
                Sent(
                    entry["n"],
                    request,
                    _process_of(entry["n"], session.processes),
                    entry.get("step"),
                    cached,
                )
            )
    return out


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


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _result(check: CheckDef, verdict: Verdict, summary: str, **figures: Any) -> CheckResult:
    return CheckResult(check.id, check.anchor, check.kind, verdict, summary, figures)


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


# --- exact checks ---------------------------------------------------------------------------


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
    for sent in sessions:
        for before, after in pairwise(sent):
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


def _values_at(data: Any, keys: list[str]) -> Iterator[Any]:
    if not keys:
        yield data
        return
    head, rest = keys[0], keys[1:]
    if isinstance(data, dict):
        children = data.values() if head == "*" else ([data[head]] if head in data else [])
        for child in children:
            yield from _values_at(child, rest)
    elif isinstance(data, list) and head == "*":
        for child in data:
            yield from _values_at(child, rest)


def _json_documents(text: str) -> Iterator[Any]:
    try:
        yield json.loads(text)
        return
    except ValueError:
        pass
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(("{", "[")):
            try:
                yield json.loads(line)
            except ValueError:
                continue


def _shown_numbers(run: ProbeRun, key: str, file: str | None) -> list[int]:
    keys = key.split(".")
    numbers: list[int] = []
    for session in run.sessions:
        texts = [p.stdout for p in session.processes]
        if file:
            texts = [session.usage_file] if session.usage_file is not None else []
        for text in texts:
            for doc in _json_documents(text):
                for value in _values_at(doc, ["*", *keys] if isinstance(doc, list) else keys):
                    if isinstance(value, int) and not isinstance(value, bool):
                        numbers.append(value)
                # the key may sit at any depth of an event
                if isinstance(doc, dict):
                    numbers.extend(_deep(doc, keys))
    return numbers


def _deep(data: Any, keys: list[str]) -> Iterator[int]:
    if isinstance(data, dict):
        for value in _values_at(data, keys):
            if isinstance(value, int) and not isinstance(value, bool):
                yield value
        for child in data.values():
            if isinstance(child, (dict, list)):
                yield from _deep(child, keys)
    elif isinstance(data, list):
        for child in data:
            yield from _deep(child, keys)


def usage_shown(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    where = run.profile.usage_output
    if where is None:
        return _result(
            check,
            "not-testable",
            "the profile names no place where the harness shows cached tokens",
        )
    reported = [s.cached for sent in sessions for s in sent if s.cached > 0]
    if not reported:
        return _result(
            check,
            "not-testable",
            "the mock reported no cached tokens (no request repeated the previous one's start)",
        )
    candidates = set(reported) | {sum(reported)}
    for session, sent in zip(run.sessions, sessions, strict=False):
        for number in range(len(session.processes)):
            own = [s.cached for s in sent if s.process == number]
            candidates.add(sum(own))
            candidates.update(sum(own[i:]) for i in range(len(own)))
    shown = _shown_numbers(run, where.key, where.file)
    place = f"{where.key} in {where.file or 'its output'}"
    figures = {"reported": reported, "shown": sorted(set(shown))[:20], "place": place}
    if set(shown) & (candidates - {0}):
        hit = sorted(set(shown) & candidates)[-1]
        return _result(
            check,
            "pass",
            f"the cached tokens reach the harness's output ({hit} at {place})",
            **figures,
        )
    return _result(
        check,
        "fail",
        f"the mock reported {len(reported)} cached counts, none shows at {place}",
        **figures,
    )


# --- behaviours -----------------------------------------------------------------------------


def _results_of(
    run: ProbeRun, sessions: list[list[Sent]], label: str
) -> list[tuple[ToolResult, Sent]]:
    """The tool result of each step labelled `label`, as first sent back: the last result of the
    request that comes right after the call (resent copies may be rewritten or repeated)."""
    steps = run.scenario.steps()
    found = []
    for step in (n for n, s in enumerate(steps) if s.label == label):
        for sent in sessions[0] if sessions else []:
            if sent.step != step + 1 or not sent.request.results:
                continue
            by_id = {r.call_id: r for r in sent.request.results}
            found.append((by_id.get(f"call_probe_{step}", sent.request.results[-1]), sent))
            break
    return found


def reread(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    first, again = _results_of(run, sessions, "read"), _results_of(run, sessions, "reread")
    if not first or not again:
        return _result(
            check,
            "not-testable",
            "the scenario has no re-read, or the harness did not send it back",
        )
    path = next(s.value for s in run.scenario.steps() if s.label == "read")
    lines = [line for line in run.scenario.files.get(path, "").splitlines() if line]
    text, before = _plain(again[0][0].text), _plain(first[0][0].text)
    kept = sum(1 for line in lines if line in text)
    figures = {
        "first_chars": len(before),
        "again_chars": len(text),
        "file_lines_in_again": kept,
        "file_lines": len(lines),
    }
    if lines and kept == len(lines):
        return _result(
            check,
            "info",
            f"full again ({len(text)} chars; the first read {len(before)})",
            behaviour="full",
            **figures,
        )
    if kept == 0:
        return _result(
            check,
            "info",
            f"stub ({len(text)} chars; the first read {len(before)}): {text.strip()[:100]!r}",
            behaviour="stub",
            **figures,
        )
    return _result(
        check,
        "info",
        f"partial ({kept} of {len(lines)} lines, {len(text)} chars)",
        behaviour="partial",
        **figures,
    )


# A number alone on its line, or after a label the harness put before the output ("Output: 1").
NUMBER_LINE = re.compile(r"^(?:[A-Za-z][\w ]*:\s*)?(\d+)\s*$")


def _strings(data: Any) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings(value)


def _plain(text: str) -> str:
    """The text a result shows: a harness that sends its output as a JSON object (its head and
    tail as fields) is read through its strings."""
    if text.lstrip().startswith(("{", "[")):
        try:
            return "\n".join(_strings(json.loads(text)))
        except ValueError:
            pass
    return text


def _toolless_output(sessions: list[list[Sent]]) -> str | None:
    """For a harness without tools (it adds a command's output to the chat itself): the
    message of its last request that holds the most lines that are a number alone."""
    sent = sessions[0] if sessions else []
    if not sent or any(s.request.tools for s in sent):
        return None
    texts = [text_of_message(m) for m in sent[-1].request.messages]
    best = max(
        texts,
        key=lambda t: sum(1 for line in t.splitlines() if NUMBER_LINE.match(line)),
        default="",
    )
    return best if any(NUMBER_LINE.match(line) for line in best.splitlines()) else None


def long_output(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    found = _results_of(run, sessions, "long-output")
    step = next((s for s in run.scenario.steps() if s.label == "long-output"), None)
    text = found[0][0].text if found else _toolless_output(sessions)
    if text is None or step is None:
        return _result(
            check,
            "not-testable",
            "the scenario has no long output, or the harness did not send it back",
        )
    total = int(step.value.split()[-1]) if step.value.split()[-1].isdigit() else 0
    lines = _plain(text).splitlines()
    numbers = [int(m.group(1)) for line in lines if (m := NUMBER_LINE.match(line))]
    kept = set(numbers)
    head = 0
    while head + 1 in kept:
        head += 1
    tail = 0
    while total - tail in kept and total - tail > head:
        tail += 1
    if total and len(kept) >= total:
        shape = "full"
    elif head and tail:
        shape = "head and tail"
    elif head:
        shape = "head only"
    elif tail:
        shape = "tail only"
    else:
        shape = "neither end"
    figures = {
        "bytes": len(text.encode()),
        "lines": len(text.splitlines()),
        "numbers_kept": len(kept),
        "head_lines": head,
        "tail_lines": tail,
        "first_line_kept": 1 in kept,
        "last_line_kept": total in kept,
        "behaviour": shape,
    }
    summary = f"{shape}: {len(text.encode()):,} bytes, {len(kept):,} of {total:,} lines"
    if shape == "head and tail":
        summary += f" (first {head:,}, last {tail:,})"
    return _result(check, "info", summary, **figures)


BRACKET_ID = re.compile(r"^\[#\w+")


def result_ids(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    last = max(
        (s for sent in sessions for s in sent), key=lambda s: len(s.request.results), default=None
    )
    if last is None or not last.request.results:
        return _result(check, "not-testable", "no tool result was sent back")
    results = last.request.results
    call_ids = sum(1 for r in results if r.call_id)
    in_text = sum(1 for r in results if BRACKET_ID.match(r.text.lstrip()))
    counted = _count(len(results), "result")
    summary = f"call ids on {call_ids} of {counted}; an id in the text of {in_text}"
    return _result(
        check, "info", summary, results=len(results), call_ids=call_ids, ids_in_text=in_text
    )


CHECKS: tuple[CheckDef, ...] = (
    CheckDef(
        "system-once",
        "pfx.system.once",
        "exact",
        "one system prompt per session",
        system_once,
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
)


def judge(run: ProbeRun) -> list[CheckResult]:
    sessions = [sent_requests(s) for s in run.sessions]
    results = []
    for check in CHECKS:
        if not any(sessions):
            results.append(_no_requests(check, run))
            continue
        try:
            results.append(check.judge(check, run, sessions))
        except (IndexError, KeyError, ValueError, TypeError) as e:
            # A request shaped unlike anything seen is this check's error, not the run's end.
            results.append(_result(check, "error", f"cannot judge: {type(e).__name__}: {e}"))
    return results


__all__ = ["CHECKS", "CheckDef", "CheckResult", "judge", "sent_requests"]
