"""The history area's side of a fuzz finding: simpler sessions to shrink it by, and the rules a
differing step probably exercises."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ...fuzzing import Case, template_pattern

Step = dict[str, Any]


def _without(mapping: Mapping[str, Any], key: str) -> Step:
    return {k: v for k, v in mapping.items() if k != key}


def _valid(steps: Sequence[Step]) -> bool:
    """Whether the reference takes `steps` for a session (its step_problems find none)."""
    from ...areas import REGISTRY  # the area registry imports this area's package

    area = REGISTRY.get("history")
    if area is None or area.step_problems is None:
        return True
    return next(iter(area.step_problems(steps)), None) is None


def _turn_end(steps: Sequence[Step], start: int) -> int:
    """The index after the `end_turn` closing the turn opened at `start` (or the session's end)."""
    for index in range(start + 1, len(steps)):
        if steps[index]["op"] in ("end_turn", "crash"):
            return index + 1
    return len(steps)


def _cuts(steps: Sequence[Step]) -> Iterator[list[Step]]:
    """The steps with a whole turn, a crash and its reload, or one step left out."""
    for index in reversed(range(1, len(steps))):
        op = steps[index]["op"]
        if op in ("user", "retry"):
            yield [*steps[:index], *steps[_turn_end(steps, index) :]]
        if op == "crash" and index + 1 < len(steps):
            yield [*steps[:index], *steps[index + 2 :]]
    for index in reversed(range(1, len(steps))):
        yield [*steps[:index], *steps[index + 1 :]]


def _simpler_step(steps: Sequence[Step], index: int) -> Iterator[list[Step]]:
    """The steps with step `index` plainer: an optional field left out, a text shortened, a
    call left out with its result."""
    step = steps[index]
    before, after = list(steps[:index]), list(steps[index + 1 :])
    for key in ("images", "error", "uneventful", "summary", "torn"):
        if key in step:
            yield [*before, _without(step, key), *after]
    if step["op"] == "assistant" and "text" in step and "calls" in step:
        yield [*before, _without(step, "text"), *after]
    if step["op"] == "result" and len(step["text"]) > 2:
        yield [*before, {**step, "text": "ok"}, *after]
    if step["op"] == "assistant" and step.get("calls"):
        for call in step["calls"]:
            calls = [c for c in step["calls"] if c is not call]
            simpler = {**step, "calls": calls} if calls else _without(step, "calls")
            if "text" not in simpler and not calls:
                simpler["text"] = "Done."
            rest = [s for s in after if not (s["op"] == "result" and s["call"] == call["call"])]
            yield [*before, simpler, *rest]


def smaller(case: Case) -> Iterator[Case]:
    """History sessions one edit simpler than `case`, each one the reference takes: a turn, a
    crash with its reload, a step, an optional field or a call left out; never its start."""
    steps: list[Step] = case["steps"]
    candidates: list[list[Step]] = list(_cuts(steps))
    for index in range(1, len(steps)):
        candidates += _simpler_step(steps, index)
    for candidate in candidates:
        if _valid(candidate):
            yield {**case, "steps": candidate}


# Texts of loop.json (history.texts) that say which rule a differing step is about, in the
# order the guessed rules are listed.
_RULE_BY_TEXT: tuple[tuple[str, str], ...] = (
    ("busy", "hist.turn.writes-between"),
    ("reload_damaged", "hist.persist.damaged-refused"),
    ("not_loaded", "hist.persist.damaged-refused"),
    ("retry_not_loaded", "hist.persist.damaged-refused"),
    ("transcript_damaged", "hist.persist.damaged-refused"),
    ("torn_dropped", "hist.persist.torn-tail"),
    ("retry_sent", "hist.retry.after-reload"),
    ("retry_nothing", "hist.retry.after-reload"),
    ("transcript_pending", "hist.persist.pending"),
    ("transcript_entry", "hist.turn.boundary"),
    ("transcript_cleared", "hist.turn.boundary"),
    ("branch_unclean", "hist.branch.clean-target"),
    ("draft", "hist.branch.edit"),
    ("tree_forked", "hist.fork.lineage"),
    ("transcript_fork", "hist.fork.lineage"),
    ("forked", "hist.fork.lineage"),
    ("fork_exists", "hist.fork.copy"),
    ("label_exists", "hist.checkpoint.boundary"),
    ("checkpoint_root", "hist.checkpoint.boundary"),
    ("transcript_label", "hist.checkpoint.persisted"),
    ("transcript_done", "hist.checkpoint.persisted"),
    ("rewind_completed", "hist.rewind.once"),
    ("rewind_dropped", "hist.rewind.dropped"),
    ("rewind_unknown", "hist.rewind.unknown"),
    ("digest", "hist.rewind.digest"),
    ("trimmed", "hist.trim.newest"),
    ("trim_done", "hist.trim.newest"),
    ("trim_nothing", "hist.trim.forward"),
    ("result_elided", "hist.elide.pair"),
    ("elided_line", "hist.elide.batched"),
    ("image_pruned", "hist.images.prune"),
    ("pruned_line", "hist.images.prune"),
    ("snapshot", "hist.snapshot.shape"),
    ("snapshot_page", "hist.snapshot.shape"),
    ("snapshot_line", "hist.snapshot.shape"),
    ("summary", "hist.summary.chain"),
    ("summary_line", "hist.summary.chain"),
    ("summary_previous", "hist.summary.chain"),
    ("summary_files", "hist.branch.reads"),
    ("summary_missing", "hist.summary.chain"),
    ("overflow_stop", "hist.compact.overflow"),
    ("shake_nothing", "hist.command.shake"),
    ("compact_nothing", "hist.ladder.order"),
    ("request_change", "hist.tokens.measure"),
    ("context", "hist.command.context"),
    ("unknown_command", "hist.command.context"),
)
# An id of a fork's copy (history.texts.fork_id, "{fork}-{k}") in a line that differs.
_FORK_COPY = re.compile(r"(?<![\w-])[A-Za-z]\w*-\d+(?![\w-])")
_RULE_BY_OP: Mapping[str, str] = {
    "start": "hist.tree.path",
    "user": "hist.tree.path",
    "assistant": "hist.tree.path",
    "result": "hist.tree.path",
    "end_turn": "hist.turn.boundary",
    "crash": "hist.persist.no-half-turn",
    "reload": "hist.persist.cold-equals-live",
    "damage": "hist.persist.damaged-refused",
    "retry": "hist.retry.after-reload",
    "request": "hist.tree.path",
    "transcript": "hist.persist.append-only",
    "tree": "hist.command.tree",
    "branch": "hist.branch.pointer",
    "fork": "hist.fork.copy",
    "switch": "hist.fork.copy",
    "checkpoint": "hist.checkpoint.boundary",
    "rewind": "hist.rewind.pointer",
    "trim": "hist.trim.newest",
    "compact": "hist.ladder.order",
    "overflow": "hist.compact.overflow",
}
_RULE_BY_COMMAND: tuple[tuple[str, str], ...] = (
    ("/shake", "hist.command.shake"),
    ("/compact", "hist.summary.chain"),
    ("/tree", "hist.command.tree"),
    ("/context", "hist.command.context"),
)
RULES_GUESSED = frozenset(
    [rule for _, rule in _RULE_BY_TEXT + _RULE_BY_COMMAND]
    + ["hist.fork.new-ids"]
    + list(_RULE_BY_OP.values())
)


def _differing_lines(expected: str, actual: str | None) -> list[str]:
    if actual is None:
        return expected.split("\n")
    want, have = expected.split("\n"), actual.split("\n")
    return [line for line in want if line not in have] + [line for line in have if line not in want]


def guess_rules(
    step: Mapping[str, Any], expected: str, actual: str | None, config: Any
) -> list[str]:
    """Rules a differing history step probably exercises, from its op and what differs."""
    rules: list[str] = []

    def add(rule: str) -> None:
        if rule not in rules:
            rules.append(rule)

    texts = config.texts
    known = set(texts.names())
    for name, rule in _RULE_BY_TEXT:
        if name not in known:
            continue
        pattern = template_pattern(texts, name)
        if len(pattern.findall(expected)) != len(pattern.findall(actual or "")):
            add(rule)
    if any(_FORK_COPY.search(line) for line in _differing_lines(expected, actual)):
        add("hist.fork.new-ids")
    if step["op"] == "command":
        text = str(step.get("text", ""))
        add(
            next(
                (rule for cmd, rule in _RULE_BY_COMMAND if text.startswith(cmd)),
                "hist.command.context",
            )
        )
    if not rules or step["op"] == "transcript":
        # Whatever a transcript's lines differ by, its records are what differs.
        add(_RULE_BY_OP.get(str(step["op"]), "hist.tree.path"))
    return rules
