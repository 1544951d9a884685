"""The context area's side of a fuzz finding: simpler sessions to shrink it by, and the rules a
differing step probably exercises."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from ...fuzzing import Case, template_pattern
from ..config import ContextConfig


def _without(mapping: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if k != key}


def smaller(case: Case) -> Iterator[Case]:
    """Sessions one edit simpler than `case`: a step, the limits, an optional field, or a file
    of a patch left out."""
    steps = case["steps"]
    if len(steps) > 1:
        for index in reversed(range(len(steps))):
            yield {**case, "steps": steps[:index] + steps[index + 1 :]}
    if "limits" in case:
        yield _without(case, "limits")
    for index, step in enumerate(steps):
        simpler = [_without(step, key) for key in ("id", "note", "offset", "limit") if key in step]
        files = step.get("files", [])
        if step["op"] == "apply_patch" and len(files) > 1:
            simpler += [{**step, "files": files[:i] + files[i + 1 :]} for i in range(len(files))]
        for replacement in simpler:
            yield {**case, "steps": [*steps[:index], replacement, *steps[index + 1 :]]}


# Texts (templates of loop.json) that say which rule a differing step is about, in the order
# the guessed rules are listed.
_RULE_BY_TEXT: tuple[tuple[str, str], ...] = (
    ("read_stub", "ctx.stub.unchanged"),
    ("elided", "ctx.cap.elided"),
    ("cut", "ctx.cap.cut"),
    ("same_result", "ctx.same.result"),
    ("compaction_heading", "ctx.compact.table"),
    ("read_empty", "ctx.read.empty"),
    ("read_past_end", "ctx.read.past-end"),
    ("read_more", "ctx.read.more"),
    ("recall_unknown", "ctx.recall.unknown"),
    ("recall_past_end", "ctx.recall.past-end"),
    ("created", "ctx.edit.created"),
    ("no_change", "ctx.edit.no-change"),
    ("no_newline", "ctx.edit.no-newline"),
    ("no_output", "ctx.output.empty"),
)
_HUNK = re.compile(r"^@@ ", re.MULTILINE)
_DIFF_OPS = frozenset({"edit", "multiedit", "write", "apply_patch"})
# Characters that some code takes for line ends; in the context area they are not.
_LINE_LIKE = re.compile("[\r\v\f\x85\u2028\u2029]")
_RULE_BY_OP: Mapping[str, str] = {
    "read": "ctx.read.bracket",
    "edit": "ctx.edit.diff",
    "multiedit": "ctx.edit.multiedit",
    "write": "ctx.edit.diff",
    "delete": "ctx.edit.deleted",
    "apply_patch": "ctx.edit.patch",
    "output": "ctx.cap.over",
    "recall": "ctx.recall.window",
    "compact": "ctx.compact.none",
    "reply": "ctx.stub.request",
}
RULES_GUESSED = frozenset(
    [rule for _, rule in _RULE_BY_TEXT]
    + list(_RULE_BY_OP.values())
    + ["ctx.edit.diff", "ctx.edit.capped", "ctx.text.lines"]
)


def _strings(value: object) -> Iterator[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def guess_rules(
    step: Mapping[str, Any], expected: str, actual: str | None, config: ContextConfig
) -> list[str]:
    """Rules a differing step probably exercises, from its texts and its op: to be reviewed."""
    texts = [expected] if actual is None else [expected, actual]
    rules: list[str] = []

    def add(rule: str) -> None:
        if rule not in rules:
            rules.append(rule)

    for name, rule in _RULE_BY_TEXT:
        pattern = template_pattern(config.texts, name)
        if any(pattern.search(text) for text in texts):
            add(rule)
    if any(_HUNK.search(text) for text in texts):
        add("ctx.edit.diff")
    if "ctx.cap.elided" in rules and step["op"] in _DIFF_OPS:
        add("ctx.edit.capped")
    if any(_LINE_LIKE.search(text) for text in _strings(step)):
        add("ctx.text.lines")
    if step["op"] == "recall":
        add("ctx.recall.window")
    if not rules:
        add(_RULE_BY_OP[step["op"]])
    return rules
