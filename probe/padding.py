"""A scenario padded to a realistic size: project notes of about N tokens (the cache audit's
estimate, four bytes a token) put where the harness sends them at the start of every request,
its instruction file where the profile names one, else after the first turn's message. A small
harness's prompt then reaches the providers' minimums (1,024 tokens and more), so what a change
costs shows as it would in a project with real instructions."""

from __future__ import annotations

import dataclasses

from ctxconf.cache.tokens import BYTES_PER_TOKEN

from .profile import Profile
from .scenario import Scenario

LINE = "- Project note {n}: keep changes small, run the tests before a commit, explain why.\n"
HEADING = "# Project notes\n\n"


def padding_text(tokens: int) -> str:
    """Notes of at least `tokens` tokens, the same text for the same count."""
    wanted = tokens * BYTES_PER_TOKEN
    lines, size, n = [HEADING], len(HEADING), 1
    while size < wanted:
        line = LINE.format(n=n)
        lines.append(line)
        size += len(line.encode("utf-8"))
        n += 1
    return "".join(lines)


def padded(scenario: Scenario, profile: Profile, tokens: int) -> tuple[Scenario, str]:
    """The scenario with about `tokens` tokens of notes, and where they went, in words."""
    notes = padding_text(tokens)
    if profile.instructions_file:
        edits = tuple(
            dataclasses.replace(t, edit_instructions=notes + "\n" + t.edit_instructions)
            if t.edit_instructions is not None
            else t
            for t in scenario.turns
        )
        instructions = notes + ("\n" + scenario.instructions if scenario.instructions else "")
        where = f"the instruction file {profile.instructions_file}"
        return dataclasses.replace(scenario, instructions=instructions, turns=edits), where
    first = scenario.turns[0]
    turns = (dataclasses.replace(first, user=f"{first.user}\n\n{notes}"), *scenario.turns[1:])
    return dataclasses.replace(scenario, turns=turns), "the first turn's message"


__all__ = ["padded", "padding_text"]
