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
from fractions import Fraction

from .config import HistoryConfig
from .entries import Assistant, Call, Compaction, Digest, Entry, Result, Trim, User, renamed
from .ladder import (
    RUNGS,
    SHAKE_RUNGS,
    SUMMARY,
    SUMMARY_MISSING,
    kept_from,
    next_rung,
    run_ladder,
)
from .request import RequestView, newest_cut, view_of
from .state import HistoryState
from .store import (
    Record,
    Store,
    cleared_record,
    current_record,
    done_record,
    entry_record,
    fork_record,
    label_record,
    pending_record,
    tip_record,
)
from .tree import open_calls, tree_view


class HistoryStepError(ValueError):
    """A step the session cannot take: the case or the harness is wrong, not the session."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class HistorySession:
    """The history of one session: its conversations, its transcript, its open turn."""

    def __init__(self, config: HistoryConfig | None = None, *, window: int, vision: bool) -> None:
        self.config = config if config is not None else HistoryConfig.load()
        self.window = window
        self.vision = vision
        self.store = Store()
        self.state = HistoryState(self.config.main)
        self._t = self.config.texts
        self._unwritten: list[Record] = []  # the open turn's records, written at its end
        self._turn_open = False
        self._crashed = False
        self._loaded = True  # False after a refused reload
        self._given: set[str] = set()  # every id a step gave, kept or not
        self._overflowed = False  # a reactive compaction since the person's last message

    # -- the turn ----------------------------------------------------------------------------

    def user(self, entry_id: str, text: str, images: Sequence[str] = ()) -> None:
        """The person's message; the first of a turn is written at once as pending input."""
        self._live()
        self._new_id(entry_id)
        if not self._turn_open:
            self._turn_open = True
            # rule: hist.persist.pending
            self._write([pending_record(entry_id, text, images)])
        self._overflowed = False
        self._append(User(entry_id, self._tip, text, tuple(images)))

    def assistant(self, entry_id: str, text: str = "", calls: Sequence[Call] = ()) -> None:
        """The model's answer: its text and its calls."""
        self._live()
        self._in_turn("an assistant step")
        self._new_id(entry_id)
        on_path = {c.call for e in self._path() if isinstance(e, Assistant) for c in e.calls}
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
        if call not in open_calls(self._path()):
            message = f"result {entry_id} answers call {call}, which is not open on the path"
            raise HistoryStepError("hist-unknown-call", message)
        entry = Result(entry_id, self._tip, call, text, tuple(images), error, uneventful)
        self._append(entry)

    def end_turn(self) -> None:
        """The turn boundary: every entry since the last write is written, the pending input
        cleared."""
        self._live()
        self._in_turn("end_turn")
        missing = open_calls(self._path())
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
        self._overflowed = False
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
        self._overflowed = False
        self._append(User(pending.id, self._tip, pending.text, pending.images))
        return t.render("retry_sent", id=pending.id)

    # -- what the session shows ----------------------------------------------------------------

    def request_view(self) -> RequestView:
        """The blocks of the request the current conversation's tip makes."""
        return view_of(self._path(), self.config)

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

    def tree(self) -> str:
        """The current conversation as a tree."""
        self._not_crashed("tree")
        if not self._loaded:
            return self._t.render("not_loaded")
        # rule: hist.command.tree
        return tree_view(self.state.conversation, self._t)

    # -- between turns: the tree ---------------------------------------------------------------

    def branch(self, to: str) -> str:
        """Move the tip; a person's message is opened as a draft (the tip goes to its parent)."""
        self._live()
        t = self._t
        conversation = self.state.conversation
        if self._turn_open:
            # rule: hist.turn.writes-between
            return t.render("busy")
        target = conversation.entries.get(to)
        if target is None:
            return t.render("unknown_entry", id=to, conversation=conversation.name)
        # rule: hist.branch.clean-target
        if open_calls(conversation.path_to(to)):
            return t.render("branch_unclean", id=to)
        # rule: hist.branch.pointer
        # rule: hist.tree.tip-persisted
        # rule: hist.branch.back
        if isinstance(target, User):
            # rule: hist.branch.edit
            self._write([tip_record(conversation.name, target.parent)])
            return t.render("draft", id=target.id, text=target.text)
        self._write([tip_record(conversation.name, target.id)])
        return ""

    def fork(self, name: str) -> str:
        """A new conversation holding a copy of the current path, made current."""
        self._live()
        t = self._t
        source = self.state.conversation
        if self._turn_open:
            return t.render("busy")
        if name in self.state.conversations:
            return t.render("fork_exists", fork=name)
        path = source.path()
        # rule: hist.fork.ids
        # rule: hist.fork.new-ids
        ids = {e.id: t.render("fork_id", fork=name, k=k) for k, e in enumerate(path, start=1)}
        taken = sorted((self.state.ids() | self._given) & set(ids.values()))
        if taken:
            message = f"fork {name} would give id {taken[0]}, which is already used"
            raise HistoryStepError("hist-id-reused", message)
        # rule: hist.fork.copy
        # rule: hist.fork.lineage
        records = [fork_record(name, source.name, source.tip)]
        records += [entry_record(name, renamed(entry, ids)) for entry in path]
        records.append(current_record(name))
        self._write(records)
        at = source.tip if source.tip is not None else t.render("root")
        return t.render("forked", source=source.name, entry=at, fork=name)

    def switch(self, to: str) -> str:
        """Make another conversation current."""
        self._live()
        if self._turn_open:
            return self._t.render("busy")
        if to not in self.state.conversations:
            return self._t.render("unknown_conversation", conversation=to)
        self._write([current_record(to)])
        return ""

    def checkpoint(self, label: str) -> str:
        """Label the tip, at a turn boundary."""
        self._live()
        t = self._t
        conversation = self.state.conversation
        # rule: hist.checkpoint.boundary
        if self._turn_open:
            return t.render("busy")
        if conversation.tip is None:
            return t.render("checkpoint_root")
        if label in conversation.labels:
            return t.render("label_exists", label=label, conversation=conversation.name)
        # rule: hist.checkpoint.persisted
        self._write([label_record(conversation.name, label, conversation.tip)])
        return ""

    def rewind(self, label: str, entry_id: str, report: str) -> str:
        """Back to a checkpoint, leaving a digest of the exploration; files stay as they are."""
        self._live()
        self._new_id(entry_id)
        t = self._t
        conversation = self.state.conversation
        if self._turn_open:
            return t.render("busy")
        target = conversation.labels.get(label)
        if target is None:
            # rule: hist.rewind.unknown
            return t.render("rewind_unknown", label=label)
        if label in conversation.completed:
            # rule: hist.rewind.once
            return t.render("rewind_completed", label=label)
        if not self._live_entry(target):
            # rule: hist.rewind.dropped
            return t.render("rewind_dropped", label=label)
        # rule: hist.rewind.digest
        # rule: hist.rewind.conversation-only
        digest = Digest(entry_id, target, label, t.render("digest", label=label, report=report))
        # rule: hist.rewind.pointer
        records = [tip_record(conversation.name, target), entry_record(conversation.name, digest)]
        self._write([*records, done_record(conversation.name, label)])
        return ""

    # -- between turns: the request's size -----------------------------------------------------

    def trim(self, entry_id: str, budget: int) -> str:
        """Cut the request to the newest messages that fit in `budget`, at a person's message."""
        self._live()
        self._new_id(entry_id)
        t = self._t
        if self._turn_open:
            return t.render("busy")
        messages = self.request_view().messages
        start = kept_from(messages, budget)
        if start == 0 or not messages:
            return t.render("trim_nothing")
        cut = messages[start].entry
        assert cut is not None
        # rule: hist.trim.recorded
        self._write([entry_record(self.state.current, Trim(entry_id, self._tip, cut.id))])
        kept = sum(block.tokens for block in messages[start:])
        return t.render("trim_done", count=start, tokens=kept)

    @property
    def target(self) -> int:
        """The tokens a compaction aims at or under."""
        return int(Fraction(self.window) * self.config.ladder.target)

    def compact(self, entry_id: str, summary: str | None = None) -> str:
        """A compaction the harness decided on: the rungs in order, down to the target."""
        self._live()
        self._new_id(entry_id)
        if self._turn_open:
            return self._t.render("busy")
        ladder = self.config.ladder
        run = run_ladder(
            self._path(),
            self.config,
            entry_id=entry_id,
            rungs=RUNGS,
            budget=ladder.keep_tokens,
            elide_min=ladder.elide_min_tokens,
            target=self.target,
            vision=self.vision,
            summary=summary,
        )
        if run.entry is None and run.stopped == SUMMARY_MISSING:
            return self._t.render("summary_missing")
        return self._finish(run.entry, run.lines, self._t.render("compact_nothing"))

    def overflow(self, entry_id: str, summary: str | None = None) -> str:
        """The provider rejected the last request: one reactive compaction, never a resend of
        the same request."""
        self._live()
        self._new_id(entry_id)
        if self._overflowed:
            return self._t.render("overflow_stop")
        ladder = self.config.ladder
        rejected = self.request_view().tokens
        run = run_ladder(
            self._path(),
            self.config,
            entry_id=entry_id,
            rungs=RUNGS,
            budget=ladder.keep_tokens,
            elide_min=ladder.elide_min_tokens,
            target=self.target,
            vision=self.vision,
            summary=summary,
            rejected=rejected,
        )
        if run.entry is None:
            return self._t.render("overflow_stop")
        self._overflowed = True
        return self._finish(run.entry, run.lines, "")

    def command(self, text: str, entry_id: str | None = None, summary: str | None = None) -> str:
        """A slash command of the person's: /shake, /compact, /context, /tree."""
        self._live()
        t = self._t
        words = text.split()
        name = words[0] if words else text
        if name in ("/shake", "/compact"):
            if entry_id is None:
                raise HistoryStepError("hist-command-id", f"{name} needs an id")
            self._new_id(entry_id)
            if self._turn_open:
                return t.render("busy")
            ladder = self.config.ladder
            shake = name == "/shake"
            # rule: hist.command.shake
            run = run_ladder(
                self._path(),
                self.config,
                entry_id=entry_id,
                rungs=SHAKE_RUNGS if shake else (SUMMARY,),
                budget=ladder.shake_keep_tokens if shake else ladder.keep_tokens,
                elide_min=0 if shake else ladder.elide_min_tokens,
                target=None,
                vision=self.vision,
                summary=summary,
            )
            if shake:
                nothing = t.render("shake_nothing")
            elif run.stopped == SUMMARY_MISSING:
                nothing = t.render("summary_missing")
            else:
                nothing = t.render("compact_nothing")
            return self._finish(run.entry, run.lines, nothing)
        if name == "/context":
            return self._context()
        if name == "/tree":
            return self.tree()
        return t.render("unknown_command", command=name)

    # -- helpers -------------------------------------------------------------------------------

    @property
    def _tip(self) -> str | None:
        return self.state.conversation.tip

    def _path(self) -> list[Entry]:
        return self.state.conversation.path()

    def _append(self, entry: Entry) -> None:
        """An entry of the open turn: held in memory until the turn ends."""
        record = entry_record(self.state.current, entry)
        self.state.apply(record)
        self._unwritten.append(record)

    def _write(self, records: list[Record]) -> None:
        """One write of `records`, each applied to the state as it is written."""
        self.store.write(records)
        for record in records:
            self.state.apply(record)

    def _finish(self, entry: Compaction | None, lines: Sequence[str], nothing: str) -> str:
        """Append a ladder run's entry (with the open turn, or written now) and report it;
        `nothing` when it did nothing."""
        if entry is None:
            return nothing
        if self._turn_open:
            self._append(entry)
        else:
            self._write([entry_record(self.state.current, entry)])
        return "\n".join(lines)

    def _live_entry(self, entry_id: str) -> bool:
        """Whether `entry_id` is on the current path, at or after its newest cut."""
        # rule: hist.rewind.live
        ids = [entry.id for entry in self._path()]
        if entry_id not in ids:
            return False
        cut = newest_cut(self._path())
        first = cut.cut if cut is not None else None
        return first is None or ids.index(entry_id) >= ids.index(first)

    def _context(self) -> str:
        # rule: hist.command.context
        view = self.request_view()
        image_tokens = self.config.image_tokens
        by_kind = {"user": 0, "assistant": 0, "result": 0, "images": 0, "front": 0, "marks": 0}
        for block in view.blocks:
            text = block.tokens - block.images * image_tokens
            if block.kind in ("user", "assistant", "result"):
                by_kind[block.kind] += text
                by_kind["images"] += block.images * image_tokens
            elif block.kind in ("summary", "snapshot"):
                by_kind["front"] += block.tokens
            else:
                by_kind["marks"] += block.tokens
        rung = next_rung(self._path(), self.config, self.vision)
        return self._t.render(
            "context",
            window=self.window,
            tokens=view.tokens,
            user=by_kind["user"],
            assistant=by_kind["assistant"],
            results=by_kind["result"],
            images=by_kind["images"],
            summaries=by_kind["front"],
            markers=by_kind["marks"],
            rung=rung if rung is not None else self._t.render("rung_none"),
        )

    def _new_id(self, entry_id: str) -> None:
        if entry_id in self._given or entry_id in self.state.ids():
            raise HistoryStepError("hist-id-reused", f"id {entry_id} is already used")
        self._given.add(entry_id)

    def _not_crashed(self, what: str) -> None:
        if self._crashed:
            message = f"{what} after a crash: only reload may follow a crash"
            raise HistoryStepError("hist-after-crash", message)

    def _live(self) -> None:
        self._not_crashed("a step")
        if not self._loaded:
            message = "nothing is loaded: the last reload was refused"
            raise HistoryStepError("hist-not-loaded", message)

    def _in_turn(self, what: str) -> None:
        if not self._turn_open:
            message = f"{what} outside a turn: a turn opens with a user step"
            raise HistoryStepError("hist-no-turn", message)
