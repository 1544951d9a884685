"""The entries of a conversation: plain frozen dataclasses, and their JSON form on disk.

An entry is never changed once appended; a fork copies entries under new ids (`renamed`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, ClassVar

# The kinds whose entries are messages: each shows a block of its own in a request.
MESSAGE_KINDS = frozenset({"user", "assistant", "result", "digest"})


@dataclass(frozen=True)
class Call:
    """A tool call of the model: its id (the model's), the tool, its arguments as JSON."""

    call: str
    tool: str
    args: Any

    def canonical_args(self) -> str:
        return canonical_json(self.args)


@dataclass(frozen=True)
class User:
    kind: ClassVar[str] = "user"
    id: str
    parent: str | None
    text: str
    images: tuple[str, ...] = ()


@dataclass(frozen=True)
class Assistant:
    kind: ClassVar[str] = "assistant"
    id: str
    parent: str | None
    text: str = ""
    calls: tuple[Call, ...] = ()


@dataclass(frozen=True)
class Result:
    kind: ClassVar[str] = "result"
    id: str
    parent: str | None
    call: str
    text: str
    images: tuple[str, ...] = ()
    error: bool = False
    uneventful: bool = False


@dataclass(frozen=True)
class Digest:
    """What a rewind leaves: the report of the exploration it ends."""

    kind: ClassVar[str] = "digest"
    id: str
    parent: str | None
    label: str
    text: str


@dataclass(frozen=True)
class Trim:
    """A recorded cut: the request starts at entry `cut`; nothing is removed."""

    kind: ClassVar[str] = "trim"
    id: str
    parent: str | None
    cut: str


@dataclass(frozen=True)
class Snapshot:
    """The middle of the request as pages: `head` verbatim, then the pages of `source`."""

    head: str
    source: tuple[str, ...]  # the messages paged, by id, in path order
    cut: str  # the first message of the protected tail
    chars: int  # the source text's code points


@dataclass(frozen=True)
class Summary:
    """The model's summary of everything before `cut`, after `previous` when chained."""

    text: str
    cut: str
    previous: str | None
    files: tuple[str, ...]


@dataclass(frozen=True)
class Compaction:
    """What one ladder run did."""

    kind: ClassVar[str] = "compaction"
    id: str
    parent: str | None
    elided: tuple[str, ...] = ()  # result ids
    pruned: tuple[tuple[str, int], ...] = ()  # (entry id, image index)
    snapshot: Snapshot | None = None
    summary: Summary | None = None
    reactive: bool = False  # made after an overflow, not by choice

    @property
    def cut(self) -> str | None:
        """Where the request starts after this run: its summary's cut, else its snapshot's."""
        if self.summary is not None:
            return self.summary.cut
        return self.snapshot.cut if self.snapshot is not None else None


Entry = User | Assistant | Result | Digest | Trim | Compaction


def is_message(entry: Entry) -> bool:
    return entry.kind in MESSAGE_KINDS


def counted(kinds: Iterable[str]) -> int:
    """How many messages a count shows among entries or blocks of these kinds (a trim's, a
    snapshot's, a summary's): every message, a digest among them."""
    # rule: hist.rewind.digest-counted
    return sum(1 for kind in kinds if kind in MESSAGE_KINDS)


def cut_of(entry: Entry) -> str | None:
    """The first kept entry of a cut `entry` makes, or None when it makes none."""
    if isinstance(entry, Trim | Compaction):
        return entry.cut
    return None


# --- JSON ------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """`value` with Decimals as the JSON numbers they are (integral ones as integers)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def canonical_json(value: Any) -> str:
    """Keys sorted at every depth, no spaces, text as it is."""
    return json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def entry_to_json(entry: Entry) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": entry.kind, "id": entry.id, "parent": entry.parent}
    if isinstance(entry, User):
        data.update(text=entry.text, images=list(entry.images))
    elif isinstance(entry, Assistant):
        calls = [{"call": c.call, "tool": c.tool, "args": _plain(c.args)} for c in entry.calls]
        data.update(text=entry.text, calls=calls)
    elif isinstance(entry, Result):
        data.update(call=entry.call, text=entry.text, images=list(entry.images))
        data.update(error=entry.error, uneventful=entry.uneventful)
    elif isinstance(entry, Digest):
        data.update(label=entry.label, text=entry.text)
    elif isinstance(entry, Trim):
        data.update(cut=entry.cut)
    else:
        data["reactive"] = entry.reactive
        data["elided"] = list(entry.elided)
        data["pruned"] = [[entry_id, index] for entry_id, index in entry.pruned]
        snap, summary = entry.snapshot, entry.summary
        data["snapshot"] = None
        if snap is not None:
            data["snapshot"] = {
                "head": snap.head,
                "source": list(snap.source),
                "cut": snap.cut,
                "chars": snap.chars,
            }
        data["summary"] = None
        if summary is not None:
            data["summary"] = {
                "text": summary.text,
                "cut": summary.cut,
                "previous": summary.previous,
                "files": list(summary.files),
            }
    return data


def entry_from_json(data: Mapping[str, Any]) -> Entry:
    """The entry `data` holds; KeyError, TypeError or ValueError when it is not one."""
    kind, entry_id, parent = data["kind"], str(data["id"]), data["parent"]
    if parent is not None and not isinstance(parent, str):
        raise TypeError("an entry's parent is an id or null")
    if kind == "user":
        return User(entry_id, parent, data["text"], tuple(data["images"]))
    if kind == "assistant":
        calls = tuple(Call(c["call"], c["tool"], c["args"]) for c in data["calls"])
        return Assistant(entry_id, parent, data["text"], calls)
    if kind == "result":
        return Result(
            entry_id,
            parent,
            data["call"],
            data["text"],
            tuple(data["images"]),
            bool(data["error"]),
            bool(data["uneventful"]),
        )
    if kind == "digest":
        return Digest(entry_id, parent, data["label"], data["text"])
    if kind == "trim":
        return Trim(entry_id, parent, data["cut"])
    if kind == "compaction":
        snap, summary = data["snapshot"], data["summary"]
        return Compaction(
            entry_id,
            parent,
            tuple(data["elided"]),
            tuple((str(pair[0]), int(pair[1])) for pair in data["pruned"]),
            None
            if snap is None
            else Snapshot(snap["head"], tuple(snap["source"]), snap["cut"], int(snap["chars"])),
            None
            if summary is None
            else Summary(
                summary["text"], summary["cut"], summary["previous"], tuple(summary["files"])
            ),
            bool(data["reactive"]),
        )
    raise ValueError(f"no entry kind {kind!r}")


def renamed(entry: Entry, ids: Mapping[str, str]) -> Entry:
    """`entry` under the ids `ids` gives its own id, its parent and the entries it names."""

    def new(old: str) -> str:
        return ids.get(old, old)

    parent = None if entry.parent is None else new(entry.parent)
    if isinstance(entry, Trim):
        return replace(entry, id=new(entry.id), parent=parent, cut=new(entry.cut))
    if isinstance(entry, Compaction):
        snap, summary = entry.snapshot, entry.summary
        return replace(
            entry,
            id=new(entry.id),
            parent=parent,
            elided=tuple(new(e) for e in entry.elided),
            pruned=tuple((new(e), index) for e, index in entry.pruned),
            snapshot=None
            if snap is None
            else replace(
                snap, head=new(snap.head), source=tuple(map(new, snap.source)), cut=new(snap.cut)
            ),
            summary=None
            if summary is None
            else replace(
                summary,
                cut=new(summary.cut),
                previous=None if summary.previous is None else new(summary.previous),
            ),
        )
    return replace(entry, id=new(entry.id), parent=parent)
