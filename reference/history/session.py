"""A session's conversations as trees, written at turn boundaries, compacted by the ladder.

A `HistorySession` is what a harness keeps of its history. The harness tells it what happens
(the person's message, the model's answer and calls, each result, the end of a turn, a crash)
and asks it for the request to send; between turns it branches, forks, rewinds, trims and
compacts. Every change is a record: a live session and one reloaded from its transcript hold
the same state.

    session = HistorySession(window=8000, vision=True)
    session.user("u1", "Fix the flaky test.")
    session.assistant("a1", calls=[Call("c1", "read", {"path": "t.py"})])
    session.result("r1", "c1", "...")
    session.assistant("a2", "Fixed.")
    session.end_turn()                          # the turn's entries are written now
    text = session.request()                    # what the next request holds

A step the session cannot take (a result for a call it never saw, a second use of an id, a step
after a crash other than reload) raises `HistoryStepError`; a step it refuses by the spec (a
branch mid-turn, an unknown checkpoint) answers with the spec's text and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from .core import HistoryStepError
from .entries import Assistant, Call, Result, User
from .moves import TreeSteps
from .sizing import SizeSteps
from .state import HistoryState
from .store import cleared_record, pending_record

__all__ = ["HistorySession", "HistoryStepError"]


class HistorySession(TreeSteps, SizeSteps):
    """The history of one session: its conversations, its transcript, its open turn.

    One method per step: `user`, `assistant`, `result`, `end_turn` (the turn); `crash`,
    `damage`, `reload`, `retry` (persistence); `request`, `request_view`, `transcript`, `tree`
    (what it shows); `branch`, `fork`, `switch`, `checkpoint`, `rewind` (the tree, between
    turns); `trim`, `compact`, `overflow`, `command` (the request's size).
    """

    # -- the turn ----------------------------------------------------------------------------

    def user(self, entry_id: str, text: str, images: Sequence[str] = ()) -> None:
        """The person's message; the first of a turn is written at once as pending input."""
        self._live()
        self._new_id(entry_id)
        if not self._turn_open:
            self._turn_open = True
            # rule: hist.persist.pending
            self._write([pending_record(entry_id, text, images)])
        self._append(User(entry_id, self._tip, text, tuple(images)))

    def assistant(self, entry_id: str, text: str = "", calls: Sequence[Call] = ()) -> None:
        """The model's answer: its text and its calls."""
        self._live()
        self._in_turn("an assistant step")
        self._new_id(entry_id)
        on_path = self.state.conversation.calls_made()
        seen: set[str] = set()
        for call in calls:
            if call.call in on_path or call.call in seen:
                raise HistoryStepError("hist-call-reused", f"call {call.call} is already made")
            seen.add(call.call)
        self._append(Assistant(entry_id, self._tip, text, tuple(calls)))

    def result(
        self,
        entry_id: str,
        call: str,
        text: str,
        images: Sequence[str] = (),
        *,
        error: bool = False,
        uneventful: bool = False,
    ) -> None:
        """The result of call `call`, which must be open on the path."""
        self._live()
        self._in_turn("a result step")
        self._new_id(entry_id)
        if call not in self.state.conversation.open_calls():
            message = f"result {entry_id} answers call {call}, which is not open on the path"
            raise HistoryStepError("hist-unknown-call", message)
        entry = Result(entry_id, self._tip, call, text, tuple(images), error, uneventful)
        self._append(entry)

    def end_turn(self) -> None:
        """The turn boundary: every entry since the last write is written, the pending input
        cleared."""
        self._live()
        self._in_turn("end_turn")
        missing = self.state.conversation.open_calls()
        if missing:
            message = f"the turn cannot end: call {missing[0]} has no result"
            raise HistoryStepError("hist-open-call", message)
        pending = self.state.pending
        cleared = [cleared_record(pending.id)] if pending is not None else []
        # rule: hist.turn.boundary
        self.store.write([*self._unwritten, *cleared])
        for record in cleared:
            self.state.apply(record)
        self._unwritten = []
        self._turn_open = False

    # -- crashes -----------------------------------------------------------------------------

    def crash(self, torn: bool = False) -> None:
        """The process dies: what was not written is lost. `torn`: it died during its last
        write, whose last record reached the disk in part."""
        self._not_crashed("crash")
        if torn:
            if not self.store.wrote:
                message = "a torn crash needs a write since the start or the last reload"
                raise HistoryStepError("hist-torn-nothing", message)
            self.store.tear()
        self._crashed = True

    def damage(self, entry_id: str) -> None:
        """The record that wrote `entry_id` can no longer be read."""
        self._not_crashed("damage")
        if self.store.written(entry_id) is None:
            message = f"entry {entry_id} is not written, so its record cannot be damaged"
            raise HistoryStepError("hist-damage-unwritten", message)
        self.store.damage(entry_id)

    def reload(self) -> str:
        """Read the transcript: the last write's state, or nothing at all if it is damaged."""
        loaded = self.store.load()
        self._crashed = False
        self._turn_open = False
        self._unwritten = []
        self.state = HistoryState(self.config.main)
        t = self._t
        if loaded.damaged:
            self._loaded = False
            last_good = loaded.last_good if loaded.last_good is not None else t.render("start")
            # rule: hist.persist.damaged-refused
            return t.render("reload_damaged", last_good=last_good)
        self._loaded = True
        # rule: hist.persist.cold-equals-live
        # rule: hist.persist.truncate
        # rule: hist.persist.no-half-turn
        for record in loaded.records:
            self.state.apply(record)
        pending = self.state.pending
        if pending is not None and pending.id in self.state.ids():
            # Every entry of its turn reached the disk; only the record clearing it was torn.
            self.state.pending = None
        conversation = self.state.conversation
        tip = conversation.tip if conversation.tip is not None else t.render("root")
        text = t.render(
            "reloaded", entries=len(conversation.entries), conversation=conversation.name, tip=tip
        )
        if loaded.torn:
            # rule: hist.persist.torn-tail
            text += "\n" + t.render("torn_dropped")
        return text

    def retry(self) -> str:
        """Send the pending message again, with its id and text, after a reload."""
        self._not_crashed("retry")
        t = self._t
        pending = self.state.pending
        if not self._loaded or (pending is None and not self.state.ids()):
            return t.render("retry_not_loaded")
        if self._turn_open:
            raise HistoryStepError("hist-retry-open", "retry while a turn is open")
        if pending is None:
            return t.render("retry_nothing")
        # rule: hist.retry.after-reload
        self._turn_open = True
        self._append(User(pending.id, self._tip, pending.text, pending.images))
        return t.render("retry_sent", id=pending.id)

    # -- what the session shows ----------------------------------------------------------------

    def request(self) -> str:
        """The request the current conversation's tip makes, as text."""
        self._not_crashed("request")
        if not self._loaded:
            return self._t.render("not_loaded")
        return self.request_view().text(self.config)

    def transcript(self) -> str:
        """What the records on disk mean, one line each, in write order."""
        self._not_crashed("transcript")
        lines = self.store.lines(self._t)
        return "\n".join(lines) if lines else self._t.render("transcript_empty")
