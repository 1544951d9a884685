"""The usage a provider answered, read from a whole JSON body or from the events of a stream as
they pass: Anthropic's `message_start` and `message_delta` (cumulative; a later value stands, a
null one does not), the Chat Completions usage chunk, the Responses API's `response.completed`
(or its `incomplete` and `failed`), Gemini's `usageMetadata` (the last one sent).

A stream is split into events on blank lines, never on the network's chunks: two events may
come in one chunk and one event in many. Nothing of the answer's text is kept."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_EVENT = 16 * 1024 * 1024  # an event longer than this is skipped, not held
_RESPONSE_ENDS = ("response.completed", "response.incomplete", "response.failed", "response.done")


@dataclass(frozen=True)
class Tokens:
    """A usage in one set of words: the whole input (read and written included), the part read
    from the cache, the part written to it (None where the API does not say), the output."""

    input: int | None
    read: int | None
    written: int | None
    output: int | None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def tokens_of(shape: str | None, usage: Mapping[str, Any]) -> Tokens:
    """The usage of an API shape, said as Tokens; the shape guessed from the keys if unknown."""
    if shape == "gemini" or "promptTokenCount" in usage:
        return Tokens(
            _int(usage.get("promptTokenCount")),
            _int(usage.get("cachedContentTokenCount")) or 0,
            None,
            _int(usage.get("candidatesTokenCount")),
        )
    if shape == "openai-chat" or "prompt_tokens" in usage:
        details = _dict(usage.get("prompt_tokens_details"))
        return Tokens(
            _int(usage.get("prompt_tokens")),
            _int(details.get("cached_tokens")) or 0,
            _int(details.get("cache_write_tokens")),
            _int(usage.get("completion_tokens")),
        )
    anthropic = "cache_read_input_tokens" in usage or "cache_creation_input_tokens" in usage
    if shape == "anthropic" or (shape is None and anthropic):
        read = _int(usage.get("cache_read_input_tokens")) or 0
        written = _int(usage.get("cache_creation_input_tokens")) or 0
        plain = _int(usage.get("input_tokens"))
        return Tokens(
            None if plain is None else plain + read + written,
            read,
            written,
            _int(usage.get("output_tokens")),
        )
    details = _dict(usage.get("input_tokens_details"))
    return Tokens(
        _int(usage.get("input_tokens")),
        _int(details.get("cached_tokens")) or 0,
        _int(details.get("cache_write_tokens")),
        _int(usage.get("output_tokens")),
    )


class UsageReader:
    """The usage of one answer, gathered from its JSON objects (a whole body, or each event)."""

    def __init__(self) -> None:
        self.usage: dict[str, Any] | None = None

    def _merge(self, found: Any, cumulative: bool = False) -> None:
        if not isinstance(found, Mapping):
            return
        if cumulative and self.usage is not None:
            self.usage.update({k: v for k, v in found.items() if v is not None})
        else:
            self.usage = dict(found)

    def read(self, data: Any) -> None:
        if not isinstance(data, Mapping):
            return
        kind = data.get("type")
        if kind == "message_start":
            self._merge(_dict(data.get("message")).get("usage"))
        elif kind == "message_delta":
            self._merge(data.get("usage"), cumulative=True)
        elif kind in _RESPONSE_ENDS:
            self._merge(_dict(data.get("response")).get("usage"))
        elif isinstance(data.get("usage"), Mapping):
            self._merge(data["usage"])
        elif isinstance(data.get("usageMetadata"), Mapping):
            self._merge(data["usageMetadata"])

    def read_text(self, text: str) -> None:
        try:
            self.read(json.loads(text))
        except ValueError:
            return  # `[DONE]`, a comment, a line that is not JSON: no usage in it


class EventSplitter:
    """Server-sent events out of bytes as they come: each event's data lines joined, read by the
    reader. `skipped` counts events too long to hold."""

    def __init__(self, reader: UsageReader) -> None:
        self.reader = reader
        self.buffer = bytearray()
        self.skipped = 0
        self._skipping = False

    def feed(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end, size = self._boundary()
            if end < 0:
                break
            event = bytes(self.buffer[:end])
            del self.buffer[: end + size]
            if self._skipping:
                self._skipping = False
            else:
                self._event(event)
        if len(self.buffer) > MAX_EVENT:
            # Keep the tail, where the event's end may be; what comes before it is dropped.
            self.skipped += 0 if self._skipping else 1
            self._skipping = True
            del self.buffer[:-3]

    def _boundary(self) -> tuple[int, int]:
        found = [(self.buffer.find(sep), len(sep)) for sep in (b"\n\n", b"\r\n\r\n", b"\r\r")]
        hits = [(at, size) for at, size in found if at >= 0]
        return min(hits) if hits else (-1, 0)

    def close(self) -> None:
        if self.buffer.strip() and not self._skipping:
            self._event(bytes(self.buffer))
        self.buffer.clear()

    def _event(self, raw: bytes) -> None:
        lines = raw.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
        data = [
            line[5:].removeprefix(" ") for line in lines.split("\n") if line.startswith("data:")
        ]
        if data:
            self.reader.read_text("\n".join(data))


__all__ = ["MAX_EVENT", "EventSplitter", "Tokens", "UsageReader", "tokens_of"]
