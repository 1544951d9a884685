"""The steps that move between turns in the tree: branch, fork, switch, checkpoint, rewind."""

from __future__ import annotations

from .core import HistoryStepError, SessionCore
from .entries import Compaction, Digest, Trim, User, renamed
from .store import (
    current_record,
    done_record,
    entry_record,
    fork_record,
    label_record,
    tip_record,
)
from .tree import open_calls


class TreeSteps(SessionCore):
    """Branch, fork, switch, checkpoint and rewind: each refused mid-turn, each one write."""

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

    def _live_entry(self, entry_id: str) -> bool:
        """Whether `entry_id` is on the current path and not before its newest trim or
        compaction (so neither before its newest cut)."""
        # rule: hist.rewind.live
        path = self._path()
        ids = [on_path.id for on_path in path]
        if entry_id not in ids:
            return False
        # rule: hist.rewind.after-compaction
        made = [i for i, entry in enumerate(path) if isinstance(entry, Trim | Compaction)]
        return not made or ids.index(entry_id) >= made[-1]
