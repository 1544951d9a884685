"""The prefix area's side of a fuzz finding: simpler sessions to shrink it by, and the rules a
differing step probably exercises."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ...fuzzing import Case, template_pattern
from ..config import PrefixConfig


def _without(mapping: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if k != key}


_PREFIX_REQUESTS = frozenset({"user", "wrap_up", "compact"})


def smaller(case: Case) -> Iterator[Case]:
    """A prefix session one step, or one optional part of its start, simpler; never its start
    step, and never a response or a body before any request (the reference refuses the other
    slips)."""
    start, *rest = case["steps"]
    for index in reversed(range(len(rest))):
        steps = rest[:index] + rest[index + 1 :]
        first_request = next(
            (i for i, s in enumerate(steps) if s["op"] in _PREFIX_REQUESTS), len(steps)
        )
        if any(s["op"] in ("response", "call", "request_body") for s in steps[:first_request]):
            continue
        yield {**case, "steps": [start, *steps]}
    for key in ("personality", "files", "mcp"):
        if key in start:
            yield {**case, "steps": [_without(start, key), *rest]}


# The prefix area: the note lines (context.note templates) and the refusals (prefix.texts) a
# differing step shows, and the rule of each op when nothing more telling differs.
_PFX_RULE_BY_NOTE: tuple[tuple[str, str], ...] = (
    ("date", "pfx.note.date"),
    ("plan_ended", "pfx.note.plan-ended"),
    ("mode", "pfx.note.mode"),
    ("personal", "pfx.note.personality"),
    ("file", "pfx.note.file"),
    ("empty", "pfx.note.file-empty"),
    ("plan_own", "pfx.note.plan-edit"),
    ("mcp", "pfx.note.mcp"),
)
_PFX_RULE_BY_REFUSAL: tuple[tuple[str, str], ...] = (
    ("wrap_up_refused", "pfx.wrap.no-call"),
    ("withdrawn", "pfx.tools.withdrawn"),
    ("unavailable", "pfx.tools.requires"),
)
_PFX_RULE_BY_OP: Mapping[str, str] = {
    "start": "pfx.system.once",
    "user": "pfx.note.form",
    "date": "pfx.note.date",
    "mode": "pfx.note.mode",
    "personality": "pfx.note.personality",
    "file": "pfx.note.file",
    "plan": "pfx.note.plan-edit",
    "withdraw": "pfx.tools.withdrawn",
    "switch": "pfx.system.switch",
    "call": "pfx.tools.requires",
    "wrap_up": "pfx.wrap.request",
    "compact": "pfx.compact.turn",
    "usage": "pfx.usage.shown",
    "history": "pfx.note.stored",
    "params": "pfx.cache.params",
    "request_body": "pfx.cache.marks",
}
# The members of a body whose lines differ, and the rule each is about.
_PFX_RULE_BY_BODY_MEMBER: tuple[tuple[str, str], ...] = (
    ('"cache_control"', "pfx.cache.marks"),
    ('"prompt_cache_breakpoint"', "pfx.cache.marks"),
    ('"ttl"', "pfx.cache.lifetimes"),
    ('"prompt_cache_key"', "pfx.cache.key"),
    ('"tool_choice"', "pfx.cache.params"),
    ('"effort"', "pfx.cache.params"),
    ('"reasoning_effort"', "pfx.cache.params"),
    ('"budget_tokens"', "pfx.cache.params"),
)
_PROVIDERS = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "llamacpp",
    "vllm",
    "ollama",
    "openrouter",
    "deepseek",
    "mistral",
    "bedrock",
)
RULES_GUESSED = frozenset(
    [rule for _, rule in _PFX_RULE_BY_NOTE + _PFX_RULE_BY_REFUSAL + _PFX_RULE_BY_BODY_MEMBER]
    + list(_PFX_RULE_BY_OP.values())
    + [f"pfx.usage.{name}" for name in _PROVIDERS]
    + ["pfx.usage.stream", "pfx.usage.unreported", "pfx.system.number", "pfx.tools.fixed"]
    + ["pfx.cache.aside"]
)


def guess_rules(
    step: Mapping[str, Any], expected: str, actual: str | None, config: PrefixConfig
) -> list[str]:
    """Rules a differing prefix step probably exercises, from its op and what differs."""
    op = step["op"]
    rules: list[str] = []

    def add(rule: str) -> None:
        if rule not in rules:
            rules.append(rule)

    if op == "response":
        add(f"pfx.usage.{step['provider']}")
        if step["stream"]:
            add("pfx.usage.stream")
        if "null" in expected or (actual is not None and "null" in actual):
            add("pfx.usage.unreported")
    elif op == "request_body":
        if "aside" in step:
            add("pfx.cache.aside")
        if actual is not None:
            want, have = expected.split("\n"), actual.split("\n")
            for member, rule in _PFX_RULE_BY_BODY_MEMBER:
                if [x for x in want if member in x] != [x for x in have if member in x]:
                    add(rule)
    elif op == "call":
        texts = [expected] if actual is None else [expected, actual]
        for name, rule in _PFX_RULE_BY_REFUSAL:
            if any(template_pattern(config.texts, name).search(text) for text in texts):
                add(rule)
    elif op in _PREFIX_REQUESTS and actual is not None:
        # A request's text: `system N`, `tools …`, `user`, then the message.
        want, have = expected.split("\n", 3), actual.split("\n", 3)
        if want[:1] != have[:1]:
            add("pfx.system.number")
        if want[1:2] != have[1:2]:
            add("pfx.tools.fixed")
        if want[3:] != have[3:]:
            add(_PFX_RULE_BY_OP[op])
            for name, rule in _PFX_RULE_BY_NOTE:
                pattern = template_pattern(config.notes, name)
                if len(pattern.findall(expected)) != len(pattern.findall(actual)):
                    add(rule)
    if not rules:
        add(_PFX_RULE_BY_OP[op])
    return rules
