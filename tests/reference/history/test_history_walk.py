"""A conversation keeps the path to its tip between steps and extends it as entries are appended;
whatever the steps, the kept path, its open calls, its calls made and the request it makes are
those of a walk from the tip back to the root."""

from __future__ import annotations

import random

import pytest

from ctxconf.reference.history import (
    Assistant,
    Call,
    Entry,
    HistoryConfig,
    HistorySession,
    HistoryStepError,
)
from ctxconf.reference.history.request import view_of
from ctxconf.reference.history.tree import Conversation, open_calls

CONFIG = HistoryConfig.load()


def walked(conversation: Conversation, entry_id: str | None) -> list[Entry]:
    """The path to `entry_id`, walked from it to the root."""
    found: list[Entry] = []
    while entry_id is not None:
        found.append(conversation.entries[entry_id])
        entry_id = conversation.entries[entry_id].parent
    return found[::-1]


def check(session: HistorySession, rng: random.Random) -> None:
    for conversation in session.state.conversations.values():
        path = walked(conversation, conversation.tip)
        assert conversation.path() == path
        assert conversation.open_calls() == list(dict.fromkeys(open_calls(path)))
        made = {c.call for e in path if isinstance(e, Assistant) for c in e.calls}
        assert conversation.calls_made() == made
        assert conversation.view(CONFIG) == view_of(path, CONFIG)
        if conversation.entries:
            elsewhere = rng.choice(list(conversation.entries))
            assert conversation.path_to(elsewhere) == walked(conversation, elsewhere)
    assert session.state.ids() == {
        entry_id for c in session.state.conversations.values() for entry_id in c.entries
    }


def step(session: HistorySession, rng: random.Random, n: int) -> None:
    """One step drawn at random; refusals and steps the session cannot take are fine."""
    conversation = session.state.conversation
    entries = list(conversation.entries)
    kind = rng.choice(
        ["turn", "turn", "open turn", "branch", "fork", "switch", "checkpoint", "rewind", "trim",
         "crash", "compact"]
    )  # fmt: skip
    if kind in ("turn", "open turn"):
        session.user(f"u{n}", f"Message {n}.", ["shot.png"] * rng.randrange(-1, 2))
        calls = [Call(f"c{n}.{k}", "read", {"path": f"f{k}"}) for k in range(rng.randrange(3))]
        session.assistant(f"a{n}", calls=calls)
        for k, call in enumerate(calls):
            if kind == "turn" or rng.random() < 0.5:
                text = "x" * rng.randrange(400)
                session.result(f"r{n}.{k}", call.call, text, uneventful=rng.random() < 0.5)
        if kind == "turn":
            session.assistant(f"b{n}", f"Answer {n}.")
            session.end_turn()
    elif kind == "branch" and entries:
        session.branch(rng.choice(entries))
    elif kind == "fork":
        session.fork(f"k{n}")
    elif kind == "switch":
        session.switch(rng.choice(list(session.state.conversations)))
    elif kind == "checkpoint":
        session.checkpoint(f"l{n % 5}")
    elif kind == "rewind":
        session.rewind(f"l{rng.randrange(5)}", f"d{n}", "Tried it.")
    elif kind == "trim":
        session.trim(f"t{n}", rng.randrange(10, 200))
    elif kind == "compact":
        session.compact(f"m{n}", "Earlier work.")
    else:
        session.crash(torn=rng.random() < 0.3)
        session.reload()


@pytest.mark.parametrize("seed", range(30))
def test_the_kept_path_is_the_walked_path(seed: int) -> None:
    rng = random.Random(seed)
    session = HistorySession(CONFIG, window=300, vision=True)
    for n in range(80):
        try:
            step(session, rng, n)
        except HistoryStepError:
            # A step the session cannot take (say, a step of a turn left open by a crash).
            if session._crashed:
                session.reload()
            elif session._turn_open:
                session.crash()
                session.reload()
        check(session, rng)
