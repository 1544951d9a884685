"""The request a path makes: its blocks, with the effects of cuts, elisions and pruned images,
and what each block costs in tokens."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from .config import HistoryConfig
from .entries import (
    Assistant,
    Compaction,
    Digest,
    Entry,
    Result,
    Snapshot,
    Summary,
    Trim,
    User,
    counted,
    cut_of,
    is_message,
)


def tokens(text: str, chars_per_token: int) -> int:
    """The tokens of `text`: its code points over chars_per_token, rounded up."""
    # rule: hist.tokens.measure
    return math.ceil(len(text) / chars_per_token)


@dataclass(frozen=True)
class Block:
    """One block of a request: a message's (entry set), or a cut's front block."""

    kind: str  # an entry kind, or "marker", "summary", "snapshot"
    text: str
    tokens: int
    images: int  # the image lines still images
    entry: Entry | None = None
    front: bool = False  # a snapshot's head: a message, but held in place by its snapshot


@dataclass(frozen=True)
class RequestView:
    blocks: tuple[Block, ...]

    @property
    def tokens(self) -> int:
        return sum(block.tokens for block in self.blocks)

    @property
    def messages(self) -> list[Block]:
        """The blocks of messages, in order; front blocks (marker, summary, snapshot) left out."""
        return [block for block in self.blocks if block.entry is not None]

    @property
    def body(self) -> list[Block]:
        """The messages after the front: a snapshot's head left out too."""
        return [block for block in self.blocks if block.entry is not None and not block.front]

    @property
    def front(self) -> list[Block]:
        """The blocks before the body: a marker, a summary, or a snapshot's head and pages."""
        return [block for block in self.blocks if block.entry is None or block.front]

    def text(self, config: HistoryConfig) -> str:
        if not self.blocks:
            return config.texts.render("request_empty")
        return "\n".join(block.text for block in self.blocks)


@dataclass(frozen=True)
class Effects:
    """What the compactions on a path changed in the messages before their cuts."""

    elided: frozenset[str] = frozenset()
    pruned: frozenset[tuple[str, int]] = frozenset()


def effects_of(path: Sequence[Entry]) -> Effects:
    elided: set[str] = set()
    pruned: set[tuple[str, int]] = set()
    # Only the compactions on the path apply: an entry before one is reached uncompacted.
    # rule: hist.compact.reachable
    for entry in path:
        if isinstance(entry, Compaction):
            elided.update(entry.elided)
            pruned.update(entry.pruned)
    return Effects(frozenset(elided), frozenset(pruned))


def newest_cut(path: Sequence[Entry]) -> Trim | Compaction | None:
    """The last entry of `path` that cuts the request; only it applies."""
    for entry in reversed(path):
        if isinstance(entry, Trim | Compaction) and entry.cut is not None:
            return entry
    return None


def message_block(entry: Entry, config: HistoryConfig, effects: Effects = Effects()) -> Block:
    """The block of message `entry`; with no effects, its original block."""
    t = config.texts
    lines: list[str] = []
    images: tuple[str, ...] = ()
    if isinstance(entry, User):
        lines += [t.render("user_header", id=entry.id), entry.text]
        images = entry.images
    elif isinstance(entry, Assistant):
        lines.append(t.render("assistant_header", id=entry.id))
        if entry.text:
            lines.append(entry.text)
        for call in entry.calls:
            args = call.canonical_args()
            lines.append(t.render("call", call=call.call, tool=call.tool, args=args))
    elif isinstance(entry, Result):
        if entry.error:
            lines.append(t.render("result_error_header", id=entry.id, call=entry.call))
        else:
            lines.append(t.render("result_header", id=entry.id, call=entry.call))
        if entry.id in effects.elided:
            # rule: hist.elide.pair
            lines.append(elided_text(entry, config))
        else:
            lines.append(entry.text)
        images = entry.images
    elif isinstance(entry, Digest):
        lines += [t.render("digest_header", id=entry.id), entry.text]
    else:
        raise ValueError(f"{entry.kind} entry {entry.id} is not a message")
    kept = 0
    for index, name in enumerate(images):
        if (entry.id, index) in effects.pruned:
            # rule: hist.images.prune
            lines.append(t.render("image_pruned", image=name))
        else:
            lines.append(t.render("image", image=name))
            kept += 1
    text = "\n".join(lines)
    cost = tokens(text, config.chars_per_token) + kept * config.image_tokens
    return Block(entry.kind, text, cost, kept, entry)


def elided_text(entry: Result, config: HistoryConfig) -> str:
    count = tokens(entry.text, config.chars_per_token)
    return config.texts.render("result_elided", tokens=count)


def _front(kind: str, text: str, config: HistoryConfig, pages: int = 0) -> Block:
    cost = tokens(text, config.chars_per_token) + pages * config.image_tokens
    return Block(kind, text, cost, 0)


def snapshot_source(path: Sequence[Entry], snapshot: Snapshot, config: HistoryConfig) -> str:
    """The original blocks of the snapshot's messages: no elision, no pruning."""
    by_id = {entry.id: entry for entry in path}
    # rule: hist.snapshot.source-original
    return "\n".join(message_block(by_id[i], config).text for i in snapshot.source)


def snapshot_block(
    entry_id: str, snapshot: Snapshot, messages: int, config: HistoryConfig
) -> Block:
    """The page plan of a snapshot; each page costs as much as an image."""
    t = config.texts
    size = config.ladder.page_chars
    pages = math.ceil(snapshot.chars / size)
    # rule: hist.snapshot.shape
    lines = [
        t.render("snapshot", id=entry_id, pages=pages, messages=messages, chars=snapshot.chars)
    ]
    for page in range(pages):
        first, last = page * size + 1, min((page + 1) * size, snapshot.chars)
        lines.append(t.render("snapshot_page", page=page + 1, first=first, last=last))
    return _front("snapshot", "\n".join(lines), config, pages)


def summary_block(entry_id: str, summary: Summary, config: HistoryConfig) -> Block:
    t = config.texts
    text = t.render("summary", id=entry_id, summary=summary.text)
    if summary.files:
        # rule: hist.branch.reads
        paths = t.render("paths_separator").join(summary.files)
        text += "\n" + t.render("summary_files", paths=paths)
    return _front("summary", text, config)


def view_of(
    path: Sequence[Entry], config: HistoryConfig, known: dict[str, Block] | None = None
) -> RequestView:
    """The request of `path`: its messages in path order, from the newest cut on; `known`: as
    for `messages_view`."""
    messages = [entry for entry in path if is_message(entry)]

    def locate(entry_id: str) -> int:
        return next(i for i, entry in enumerate(messages) if entry.id == entry_id)

    return messages_view(messages, locate, effects_of(path), newest_cut(path), config, known)


def messages_view(
    messages: Sequence[Entry],
    locate: Callable[[str], int],
    effects: Effects,
    cut: Trim | Compaction | None,
    config: HistoryConfig,
    known: dict[str, Block] | None = None,
) -> RequestView:
    """The request of a path whose messages are `messages` (`locate` gives a message's index
    among them), whose compactions had `effects` and whose newest cut is `cut`; `known`: the
    original blocks of messages made before, by id, kept to be used again."""
    front: list[Block] = []
    if cut is not None:
        first = cut_of(cut)
        assert first is not None
        start = locate(first)
        if isinstance(cut, Trim):
            # rule: hist.trim.recorded
            count = counted(entry.kind for entry in messages[:start])
            front.append(_front("marker", config.texts.render("trimmed", count=count), config))
        elif cut.summary is not None:
            # rule: hist.summary.chain
            front.append(summary_block(cut.id, cut.summary, config))
        elif cut.snapshot is not None:
            snap = cut.snapshot
            head = messages[locate(snap.head)]
            front.append(replace(message_block(head, config, effects), front=True))
            drawn = counted(messages[locate(i)].kind for i in snap.source)
            front.append(snapshot_block(cut.id, snap, drawn, config))
        messages = messages[start:]
    # rule: hist.tree.path
    if known is None:
        blocks = front + [message_block(entry, config, effects) for entry in messages]
    else:
        blocks = front + [_known_block(entry, config, effects, known) for entry in messages]
    return RequestView(tuple(blocks))


def _known_block(
    entry: Entry, config: HistoryConfig, effects: Effects, known: dict[str, Block]
) -> Block:
    """`message_block(entry, config, effects)`, made once for a message no effect touches."""
    if entry.id in effects.elided or _pruned_in(entry, effects):
        return message_block(entry, config, effects)
    block = known.get(entry.id)
    if block is None or block.entry is not entry:
        block = known[entry.id] = message_block(entry, config)
    return block


def _pruned_in(entry: Entry, effects: Effects) -> bool:
    images = entry.images if isinstance(entry, User | Result) else ()
    return any((entry.id, index) in effects.pruned for index in range(len(images)))
