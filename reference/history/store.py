"""The transcript on disk: records written at turn boundaries, torn writes, damage, reading back.

The disk is simulated as a list of record strings, one JSON object and a line end each, so a torn
write is a record cut short (no line end) and reading really parses what is there. Records are
only ever appended; reading drops a torn last record so the next write starts a record of its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..texts import Texts
from .entries import Entry, entry_from_json, entry_to_json

Record = dict[str, Any]

# Each record type and the text fields it holds beside `type`.
_FIELDS: Mapping[str, tuple[str, ...]] = {
    "entry": ("conversation",),
    "tip": ("conversation",),
    "label": ("conversation", "label", "entry"),
    "done": ("conversation", "label"),
    "pending": ("id", "text"),
    "cleared": ("id",),
    "current": ("conversation",),
    "fork": ("name", "source"),
}


def entry_record(conversation: str, entry: Entry) -> Record:
    return {"type": "entry", "conversation": conversation, "entry": entry_to_json(entry)}


def tip_record(conversation: str, tip: str | None) -> Record:
    return {"type": "tip", "conversation": conversation, "tip": tip}


def label_record(conversation: str, label: str, entry: str) -> Record:
    return {"type": "label", "conversation": conversation, "label": label, "entry": entry}


def done_record(conversation: str, label: str) -> Record:
    return {"type": "done", "conversation": conversation, "label": label}


def pending_record(entry_id: str, text: str, images: Sequence[str]) -> Record:
    return {"type": "pending", "id": entry_id, "text": text, "images": list(images)}


def cleared_record(entry_id: str) -> Record:
    return {"type": "cleared", "id": entry_id}


def current_record(conversation: str) -> Record:
    return {"type": "current", "conversation": conversation}


def fork_record(name: str, source: str, entry: str | None) -> Record:
    return {"type": "fork", "name": name, "source": source, "entry": entry}


def encode(record: Record) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def decode(text: str) -> Record:
    """The record a whole line holds; ValueError when it is not one (a damaged record)."""
    try:
        record = json.loads(text)
        if not isinstance(record, dict) or record.get("type") not in _FIELDS:
            raise ValueError("not a record")
        for name in _FIELDS[record["type"]]:
            if not isinstance(record[name], str):
                raise ValueError(f"{name} is not text")
        if record["type"] == "entry":
            entry_from_json(record["entry"])
        return record
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise ValueError(f"unreadable record: {error}") from error


@dataclass(frozen=True)
class Loaded:
    """What reading the transcript found."""

    records: tuple[Record, ...]  # every record read intact, in write order
    torn: bool  # a torn last record was dropped
    damaged: bool  # a whole record could not be read: nothing is loaded
    last_good: str | None  # the last entry read intact before the damage


class Store:
    """The transcript of one session: the records on disk and the writes that put them there."""

    def __init__(self) -> None:
        self.records: list[str] = []
        self._last_write: tuple[int, int] | None = None  # since the last start or reload

    def write(self, records: Sequence[Record]) -> None:
        """One write of `records`, each a record of its own."""
        if not records:
            return
        start = len(self.records)
        # rule: hist.persist.append-only
        self.records.extend(encode(record) for record in records)
        self._last_write = (start, len(self.records))

    @property
    def wrote(self) -> bool:
        """Whether a write happened since the last start or reload."""
        return self._last_write is not None

    def tear(self) -> None:
        """The process died during the last write: its last record reached the disk in part."""
        if self._last_write is None:
            raise ValueError("no write to tear since the last start or reload")
        last = self._last_write[1] - 1
        whole = self.records[last]
        # Half the record and no line end: never a whole JSON object.
        self.records[last] = whole[: max(1, (len(whole) - 1) // 2)]
        self._last_write = None

    def written(self, entry_id: str) -> int | None:
        """The index of the intact record that wrote entry `entry_id`, if any."""
        for index, text in enumerate(self.records):
            if not text.endswith("\n"):
                continue
            try:
                record = decode(text)
            except ValueError:
                continue
            if record["type"] == "entry" and record["entry"]["id"] == entry_id:
                return index
        return None

    def damage(self, entry_id: str) -> None:
        """The record that wrote `entry_id` can no longer be read; its line end survives."""
        index = self.written(entry_id)
        if index is None:
            raise ValueError(f"entry {entry_id} was never written")
        self.records[index] = "\ufffd" * (len(self.records[index]) - 1) + "\n"

    def load(self) -> Loaded:
        """Read every record back; a torn last record is dropped from the disk."""
        self._last_write = None
        torn = bool(self.records) and not self.records[-1].endswith("\n")
        if torn:
            # rule: hist.persist.torn-tail
            del self.records[-1]
        read: list[Record] = []
        last_good: str | None = None
        for text in self.records:
            try:
                record = decode(text)
            except ValueError:
                # rule: hist.persist.damaged-refused
                return Loaded(tuple(read), torn, True, last_good)
            read.append(record)
            if record["type"] == "entry":
                last_good = record["entry"]["id"]
        return Loaded(tuple(read), torn, False, last_good)

    def lines(self, texts: Texts) -> list[str]:
        """The transcript as canonical lines, one per record on disk."""
        lines: list[str] = []
        for text in self.records:
            try:
                record = decode(text) if text.endswith("\n") else None
            except ValueError:
                record = None
            lines.append(
                texts.render("transcript_damaged") if record is None else line(record, texts)
            )
        return lines


def line(record: Record, texts: Texts) -> str:
    """What one record means, as one canonical line."""
    root = texts.render("root")
    kind = record["type"]
    if kind == "entry":
        entry = entry_from_json(record["entry"])
        return texts.render(
            "transcript_entry",
            id=entry.id,
            kind=entry.kind,
            parent=entry.parent if entry.parent is not None else root,
            conversation=record["conversation"],
        )
    if kind == "tip":
        tip = record["tip"] if record["tip"] is not None else root
        return texts.render("transcript_tip", conversation=record["conversation"], tip=tip)
    if kind == "label":
        return texts.render(
            "transcript_label",
            conversation=record["conversation"],
            label=record["label"],
            id=record["entry"],
        )
    if kind == "done":
        return texts.render(
            "transcript_done", conversation=record["conversation"], label=record["label"]
        )
    if kind == "pending":
        return texts.render("transcript_pending", id=record["id"])
    if kind == "cleared":
        return texts.render("transcript_cleared", id=record["id"])
    if kind == "current":
        return texts.render("transcript_current", conversation=record["conversation"])
    entry_id = record["entry"] if record["entry"] is not None else root
    return texts.render(
        "transcript_fork", fork=record["name"], source=record["source"], entry=entry_id
    )
