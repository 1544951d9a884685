"""The behaviours, reported with figures: what an unchanged re-read becomes, what a 50,000-line
output becomes, whether results carry ids."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ctxconf.shapes.wire import ToolResult, text_of_message

from ..harness import ProbeRun
from .model import CheckDef, CheckResult, Sent, _count, _result


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
