"""A conversation as a tree: its entries, its tip, the path from the root, the tree view."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from ..texts import Texts
from .config import HistoryConfig
from .entries import Assistant, Compaction, Entry, Result, Trim, is_message
from .request import Block, Effects, RequestView, messages_view

# The connectors of the tree view: a child among several, the last one, and what continues
# below each.
_BRANCH, _LAST, _THROUGH, _AFTER = "├─ ", "└─ ", "│  ", "   "


@dataclass
class Walk:
    """The path to one entry, kept so that the next step's path extends it: a step appends to
    the tip, and walking the whole tree back to the root at every step grew with the session."""

    tip: str | None = None
    entries: list[Entry] = field(default_factory=list)
    made: set[str] = field(default_factory=set)  # every call made on the path
    answered: set[str] = field(default_factory=set)  # every call with a result on the path
    open: dict[str, None] = field(default_factory=dict)  # calls made, not answered, in order
    # What the request needs: the messages, where each is among them, what the compactions
    # changed and the newest cut.
    messages: list[Entry] = field(default_factory=list)
    position: dict[str, int] = field(default_factory=dict)
    effects: Effects = field(default_factory=Effects)
    cut: Trim | Compaction | None = None

    def extend(self, entry: Entry) -> None:
        self.entries.append(entry)
        self.tip = entry.id
        if is_message(entry):
            self.position[entry.id] = len(self.messages)
            self.messages.append(entry)
        if isinstance(entry, Compaction):
            self.effects = Effects(
                self.effects.elided | frozenset(entry.elided),
                self.effects.pruned | frozenset(entry.pruned),
            )
        if isinstance(entry, Trim | Compaction) and entry.cut is not None:
            self.cut = entry
        if isinstance(entry, Assistant):
            for call in entry.calls:
                self.made.add(call.call)
                if call.call not in self.answered:
                    self.open[call.call] = None
        elif isinstance(entry, Result):
            self.answered.add(entry.call)
            self.open.pop(entry.call, None)


@dataclass
class Conversation:
    """An append-only list of entries and a tip (None: the root)."""

    name: str
    entries: dict[str, Entry] = field(default_factory=dict)  # in append order
    tip: str | None = None
    labels: dict[str, str] = field(default_factory=dict)  # label -> entry id, in set order
    completed: set[str] = field(default_factory=set)  # labels rewound to
    forked_from: tuple[str, str | None] | None = None  # (source conversation, its tip then)
    _walk: Walk = field(default_factory=Walk, repr=False, compare=False)
    # Each message's original block, made once: a request is rebuilt every turn, and making
    # every block again each time was most of a turn's cost.
    _blocks: dict[str, Block] = field(default_factory=dict, repr=False, compare=False)
    _blocks_config: HistoryConfig | None = field(default=None, repr=False, compare=False)

    def append(self, entry: Entry) -> None:
        self.entries[entry.id] = entry
        self.tip = entry.id

    def path(self) -> list[Entry]:
        """The entries from the root to the tip."""
        return self.path_to(self.tip)

    def path_to(self, entry_id: str | None) -> list[Entry]:
        """The entries from the root to `entry_id` (None: the root, an empty path)."""
        return list(self._walk_to(entry_id).entries)

    def open_calls(self) -> list[str]:
        """The calls on the path that have no result on it, in call order, each once."""
        return list(self._walk_to(self.tip).open)

    def calls_made(self) -> AbstractSet[str]:
        """Every call made on the path."""
        return self._walk_to(self.tip).made

    def view(self, config: HistoryConfig) -> RequestView:
        """The request the tip makes: `view_of(self.path(), config)`, from the kept path."""
        walk = self._walk_to(self.tip)
        locate = walk.position.__getitem__
        known = self.known_blocks(config)
        view = messages_view(walk.messages, locate, walk.effects, walk.cut, config, known)
        # Only this request's blocks are kept: a message cut off or left on another branch is
        # not sent again soon, and its block would hold a second copy of its text.
        sent = (block.entry.id for block in view.blocks if block.entry is not None)
        self._blocks = {entry_id: known[entry_id] for entry_id in sent if entry_id in known}
        return view

    def known_blocks(self, config: HistoryConfig) -> dict[str, Block]:
        """The original blocks of the messages of this conversation's last request (and any
        made since), by id."""
        if config is not self._blocks_config:
            self._blocks, self._blocks_config = {}, config
        return self._blocks

    def _walk_to(self, entry_id: str | None) -> Walk:
        """The path to `entry_id`: the kept one extended when it leads there, else walked anew."""
        walk = self._walk
        found: list[Entry] = []
        at = entry_id
        while at != walk.tip and at is not None:
            found.append(self.entries[at])
            at = self.entries[at].parent
        if at != walk.tip:
            # Not through the kept path's tip: `found` is the whole path.
            walk = self._walk = Walk()
        for entry in reversed(found):
            walk.extend(entry)
        return walk


def open_calls(path: list[Entry]) -> list[str]:
    """The calls on `path` that have no result on it, in call order."""
    answered = {entry.call for entry in path if isinstance(entry, Result)}
    return [
        call.call
        for entry in path
        if isinstance(entry, Assistant)
        for call in entry.calls
        if call.call not in answered
    ]


def tree_view(conversation: Conversation, texts: Texts) -> str:
    """Every entry of `conversation`, depth first, children in append order."""
    lines: list[str] = []
    # rule: hist.fork.lineage
    if conversation.forked_from is not None:
        source, at = conversation.forked_from
        shown = at if at is not None else texts.render("root")
        lines.append(texts.render("tree_forked", source=source, entry=shown))
    children: dict[str | None, list[str]] = {}
    for child in conversation.entries.values():
        children.setdefault(child.parent, []).append(child.id)
    labels: dict[str, list[str]] = {}
    for label, entry_id in conversation.labels.items():
        labels.setdefault(entry_id, []).append(label)

    def line(entry_id: str) -> str:
        entry = conversation.entries[entry_id]
        text = texts.render("tree_entry", id=entry_id, kind=entry.kind)
        for label in labels.get(entry_id, []):
            text = texts.render("tree_label", line=text, label=label)
        if entry_id == conversation.tip:
            text = texts.render("tree_tip", line=text)
        return text

    def spread(kids: list[str], prefix: str) -> list[tuple[str, str, str]]:
        # A lone child continues at its parent's prefix: a chain stays flat.
        if len(kids) == 1:
            return [(kids[0], prefix, prefix)]
        return [
            (kid, prefix + (_LAST if last else _BRANCH), prefix + (_AFTER if last else _THROUGH))
            for index, kid in enumerate(kids)
            for last in [index == len(kids) - 1]
        ]

    # (entry, its first line's prefix, its subtree's prefix); a stack, for any depth.
    stack = list(reversed(spread(children.get(None, []), "")))
    while stack:
        entry_id, first, rest = stack.pop()
        lines.append(first + line(entry_id))
        stack.extend(reversed(spread(children.get(entry_id, []), rest)))
    if conversation.tip is None:
        lines.append(texts.render("tree_tip", line=texts.render("root")))
    return "\n".join(lines)
