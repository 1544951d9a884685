"""A scenario padded to a realistic size: notes of the tokens asked for, in the instruction file
where the profile names one, else after the first message; the rest of the scenario as it was."""

from __future__ import annotations

import dataclasses

from ctxconf.cache.tokens import unit_tokens
from ctxconf.probe.padding import padded, padding_text
from ctxconf.probe.profile import load_profile
from ctxconf.probe.scenario import load_scenario


def test_the_notes_hold_at_least_the_tokens_asked_for_and_hardly_more() -> None:
    for tokens in (1, 1000, 4000):
        text = padding_text(tokens)
        size = unit_tokens(text.encode("utf-8"))
        assert tokens <= size < tokens + 30
    assert padding_text(2000) == padding_text(2000)


def test_a_profile_with_an_instruction_file_gets_the_notes_there() -> None:
    profile = load_profile("codex")
    assert profile.instructions_file
    scenario, where = padded(load_scenario("instructions-edited"), profile, 2000)
    assert where == f"the instruction file {profile.instructions_file}"
    original = load_scenario("instructions-edited")
    assert scenario.instructions is not None and original.instructions is not None
    assert scenario.instructions == padding_text(2000) + "\n" + original.instructions
    # An edit keeps the notes, so the file stays as large.
    edits = [t.edit_instructions for t in scenario.turns if t.edit_instructions]
    assert edits and all(e.startswith(padding_text(2000)) for e in edits)
    assert [t.user for t in scenario.turns] == [t.user for t in original.turns]


def test_a_profile_without_one_gets_them_after_the_first_message() -> None:
    profile = dataclasses.replace(load_profile("codex"), instructions_file=None)
    original = load_scenario("basic")
    scenario, where = padded(original, profile, 1000)
    assert where == "the first turn's message"
    assert scenario.turns[0].user == original.turns[0].user + "\n\n" + padding_text(1000)
    assert scenario.turns[1:] == original.turns[1:] and scenario.instructions is None
