"""What a session holds, and how each record changes it.

A live session changes its state only through `apply`, the same function reading the transcript
back uses: so what a reload restores is, record for record, what the session held when it wrote.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from .entries import entry_from_json
from .store import Record
from .tree import Conversation


@dataclass(frozen=True)
class Pending:
    """The person's message of a turn that has not ended, as written when the turn opened."""

    id: str
    text: str
    images: tuple[str, ...]


@dataclass
class HistoryState:
    """Every conversation by name, the current one, and the pending input."""

    main: str
    conversations: dict[str, Conversation] = field(default_factory=dict)
    current: str = ""
    pending: Pending | None = None
    # Every entry id of every conversation, kept as entries are applied: a step checks its id
    # against them, and gathering them from every conversation at each step grew with the
    # session.
    _ids: set[str] = field(default_factory=set, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.conversations:
            self.conversations[self.main] = Conversation(self.main)
            self.current = self.main
        self._ids = {entry_id for c in self.conversations.values() for entry_id in c.entries}

    @property
    def conversation(self) -> Conversation:
        return self.conversations[self.current]

    def ids(self) -> AbstractSet[str]:
        """Every entry id of every conversation."""
        return self._ids

    def apply(self, record: Record) -> None:
        kind = record["type"]
        if kind == "entry":
            conversation = self.conversations.setdefault(
                record["conversation"], Conversation(record["conversation"])
            )
            # Appending moves the tip to the new entry, on disk as in memory.
            entry = entry_from_json(record["entry"])
            conversation.append(entry)
            self._ids.add(entry.id)
        elif kind == "tip":
            self.conversations[record["conversation"]].tip = record["tip"]
        elif kind == "label":
            self.conversations[record["conversation"]].labels[record["label"]] = record["entry"]
        elif kind == "done":
            self.conversations[record["conversation"]].completed.add(record["label"])
        elif kind == "pending":
            # rule: hist.persist.pending
            self.pending = Pending(record["id"], record["text"], tuple(record["images"]))
        elif kind == "cleared":
            self.pending = None
        elif kind == "current":
            self.current = record["conversation"]
        elif kind == "fork":
            self.conversations[record["name"]] = Conversation(
                record["name"], forked_from=(record["source"], record["entry"])
            )
